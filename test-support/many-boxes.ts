import type { Page } from 'playwright-core';

/**
 * 1,000 real boxes take about 5 minutes to create here (measured: 40 boxes in
 * 12.1 s at 8 in flight, ~300 ms each, and about half that again to delete),
 * far past what one test file may take on a shared 2-core machine. So the
 * list answer is widened instead: one real box's representation, as the core
 * returned it, copied under `count - 1` more names, served in the API's own
 * pages of 500 with its cursors. Everything else (the core, the event stream,
 * the real box's changes) stays real.
 */
export async function widenBoxList(page: Page, coreUrl: string, project: string, count: number): Promise<string[]> {
  const names: string[] = [];
  await page.route(`${coreUrl}/v1/projects/${project}/boxes?*`, async (route) => {
    const url = new URL(route.request().url());
    const real = await route.fetch({ url: `${coreUrl}/v1/projects/${project}/boxes?limit=500` });
    const { items } = (await real.json()) as { items: Record<string, unknown>[] };
    const template = items[0]!;
    const all = [...items];
    for (let i = all.length; i < count; i++) {
      const name = `many-${String(i).padStart(4, '0')}`;
      all.push({ ...template, id: `box_many${String(i).padStart(16, '0')}`, name });
    }
    names.splice(0, names.length, ...all.map((b) => b.name as string));
    const offset = Number(url.searchParams.get('cursor') ?? 0);
    const limit = Number(url.searchParams.get('limit') ?? 100);
    const page = all.slice(offset, offset + limit);
    const next = offset + limit < all.length ? String(offset + limit) : null;
    await route.fulfill({
      status: 200,
      contentType: 'application/json',
      body: JSON.stringify({ items: page, next_cursor: next }),
    });
  });
  return names;
}
