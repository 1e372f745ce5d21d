import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { BoxDetailPage } from './pages/box-detail-page';
import { StatsView } from './pages/stats-view';
import { uiFixture } from './support/ui-fixture';

describe('live stats in the window', () => {
  const ui = uiFixture();

  test("the Memory chart shows the box's memory, as the stats stream reports it", async () => {
    const { project, name } = await ui.uniqueBox('stats', 'mem', { config: { ram_mb: 256 } });
    const page = await ui.open({ route: `/projects/${project}/boxes/${name}/overview` });
    await new BoxDetailPage(page, name).tab('Stats').click();
    const stats = new StatsView(page);

    // "412.0 KiB of 256.0 MiB": a real, non-zero reading against the box's own limit.
    const caption = stats.now('Memory').filter({ hasText: /[\d.]+ [KMG]iB of 256\.0 MiB/ });
    await caption.waitFor({ timeout: 20_000 });
    const used = Number(/([\d.]+) [KMG]iB of/.exec((await caption.textContent()) ?? '')?.[1]);
    assert.ok(used > 0, `the box uses some memory: ${await caption.textContent()}`);
    const sample = (await (await ui.api('GET', `/v1/projects/${project}/boxes/${name}/stats`)).json()) as {
      memory_limit_bytes: number;
    };
    assert.equal(sample.memory_limit_bytes, 256 * 1024 * 1024);
    // The chart draws a line through the samples as they arrive (a steady reading is a flat line,
    // which has no height, so look at the path's points rather than its visibility).
    const line = stats.chart('Memory').locator('.recharts-line-curve').first();
    await line.waitFor({ state: 'attached', timeout: 10_000 });
    await page.waitForFunction(
      (el) => (el?.getAttribute('d')?.match(/L/g) ?? []).length >= 2,
      await line.elementHandle(),
      { timeout: 10_000 },
    );
  });
});
