import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../../test-support/chromium';
import { readEvents } from '../../shared/calls/event-stream';
import { api } from '../../test-support/core-process';
import { widenBoxList } from '../../test-support/many-boxes';
import { p95Result, type ScenarioResult } from '../report';
import { progress, summarize } from '../stats';
import { createBox, type BenchContext, type BenchScenario } from './context';

const ROWS = 1000;
const PAINT_TARGET_MS = 300;
const STATUS_TARGET_MS = 250;
const BOX = 'ui';

/** Runs in the page (as a string: bench/ has no DOM types): records each badge change, stamped in the frame after it. */
const RECORD_STATUS_CHANGES = `(() => {
  const seen = [];
  window.__seen = seen;
  new MutationObserver(() => {
    const row = [...document.querySelectorAll('table tr')].find((tr) => tr.querySelector('th')?.textContent === ${JSON.stringify(BOX)});
    const status = row?.querySelector('[data-status]')?.getAttribute('data-status') ?? '';
    if (seen.at(-1)?.status === status) return;
    requestAnimationFrame(() => seen.push({ status, at: performance.timeOrigin + performance.now() }));
  }).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-status'] });
})()`;

async function openList(browser: Browser, ctx: BenchContext): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.setDefaultTimeout(30_000);
  await page.goto(`${ctx.core.url}/#token=${encodeURIComponent(ctx.core.token)}`);
  return page;
}

/** Time from the list's data arriving (the last page parsed) to its rows painted, read from the renderer's own marks. */
async function paintTimes(browser: Browser, ctx: BenchContext, runs: number): Promise<number[]> {
  const page = await openList(browser, ctx);
  await widenBoxList(page, ctx.core.url, ctx.project, ROWS);
  const out: number[] = [];
  for (let i = 0; i < runs + 1; i++) {
    await page.goto(`${ctx.core.url}/#/projects/${ctx.project}/boxes`);
    await page.reload();
    await page.getByRole('search', { name: 'Filter boxes' }).getByText(`${ROWS} boxes`).waitFor();
    // Polled with evaluate: the page's CSP forbids the eval that waitForFunction needs.
    let value: number | null = null;
    for (let tries = 0; value === null; tries++) {
      if (tries > 3000) throw new Error('the renderer never marked boxdesk:boxes-painted');
      value = (await page.evaluate(`(() => {
        const data = performance.getEntriesByName('boxdesk:boxes-data').at(-1);
        const painted = performance.getEntriesByName('boxdesk:boxes-painted').at(-1);
        return data && painted && painted.startTime > data.startTime ? painted.startTime - data.startTime : null;
      })()`)) as number | null;
      if (value === null) await new Promise((r) => setTimeout(r, 10));
    }
    if (i > 0) out.push(value); // the first load warms the browser's caches
  }
  await page.close();
  return out;
}

/**
 * From the core emitting a box.status event (its `time`) to the row's badge
 * showing the status, in the frame after the change. Stops and resumes the
 * real box; only the settled states (stopped, running) are timed, since a
 * transient one may be replaced within one batch.
 */
async function statusTimes(browser: Browser, ctx: BenchContext, cycles: number): Promise<number[]> {
  const page = await openList(browser, ctx);
  await page.goto(`${ctx.core.url}/#/projects/${ctx.project}/boxes`);
  const badge = page
    .getByRole('table', { name: 'Boxes' })
    .getByRole('row')
    .filter({ has: page.getByRole('rowheader', { name: BOX, exact: true }) })
    .locator('[data-status]');
  await badge.and(page.locator('[data-status="running"]')).waitFor();
  await page.evaluate(RECORD_STATUS_CHANGES);
  const events: { status: string; time: number }[] = [];
  const abort = new AbortController();
  const res = await fetch(`${ctx.core.url}/v1/events`, {
    headers: { authorization: `Bearer ${ctx.core.token}` },
    signal: abort.signal,
  });
  const reading = (async () => {
    for await (const e of readEvents(res.body as unknown as AsyncIterable<Uint8Array>)) {
      if (e.type !== 'box.status') continue;
      const { box } = e.data as { box?: { name: string; status: string } };
      if (box?.name === BOX) events.push({ status: box.status, time: Date.parse(e.time) });
    }
  })().catch(() => undefined);

  for (let i = 0; i < cycles; i++) {
    for (const action of ['stop', 'resume'] as const) {
      const r = await api(ctx.core, 'POST', `/v1/projects/${ctx.project}/boxes/${BOX}/${action}`);
      if (r.status !== 200) throw new Error(`${action}: HTTP ${r.status} ${await r.text()}`);
      await r.arrayBuffer();
      await badge.and(page.locator(`[data-status="${action === 'stop' ? 'stopped' : 'running'}"]`)).waitFor();
    }
  }
  await new Promise((r) => setTimeout(r, 300));
  abort.abort();
  await reading;
  const seen = (await page.evaluate('window.__seen')) as { status: string; at: number }[];
  await page.close();
  const out: number[] = [];
  for (const e of events.filter((x) => x.status === 'stopped' || x.status === 'running')) {
    const shown = seen.find((s) => s.status === e.status && s.at >= e.time - 5);
    if (shown) out.push(Math.max(0, shown.at - e.time));
  }
  if (out.length < cycles)
    throw new Error(`matched only ${out.length} of ${events.length} status events to a visible change`);
  return out;
}

/** The window's two budgets: a 1,000-box list painted fast, and a status change seen fast. */
async function run(ctx: BenchContext): Promise<ScenarioResult[]> {
  await createBox(ctx, BOX);
  const browser = await launchChromium();
  try {
    const runs = Math.min(ctx.n, 15);
    progress(`ui: ${ROWS} rows painted, ${runs} loads`);
    const paint = summarize(await paintTimes(browser, ctx, runs));
    progress(`ui: event to visible status, ${runs} stop/resume cycles`);
    const status = summarize(await statusTimes(browser, ctx, runs));
    const listed = await api(ctx.core, 'GET', `/v1/projects/${ctx.project}/boxes`);
    await listed.arrayBuffer();
    return [
      p95Result(
        `ui: data → ${ROWS} rows painted`,
        paint,
        PAINT_TARGET_MS,
        'Chromium headless, no GPU; one real box widened to 1,000 in the list answer (see test-support/many-boxes.ts); renderer marks boxdesk:boxes-data → boxdesk:boxes-painted (next frame)',
      ),
      p95Result(
        'ui: event → status visible',
        status,
        STATUS_TARGET_MS,
        "from the event's time (core clock) to the frame after the row's badge changed (same machine clock); stopped and running only",
      ),
    ];
  } finally {
    await browser.close();
  }
}

export const uiList: BenchScenario = { name: 'ui list and live status', run };
