import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Page, WebSocketRoute } from 'playwright-core';
import { untilNoProcess, untilProcess } from '../test-support/box-processes';
import { BoxDetailPage } from './pages/box-detail-page';
import { BoxListPage } from './pages/box-list-page';
import { ConsoleView } from './pages/console-view';
import { LogsView } from './pages/logs-view';
import { createBoxViaApi, downloaded, screenshots, uiFixture, uniqueName } from './support/ui-fixture';

const PROJECT = uniqueName('term');

describe('consoles and logs in the window', () => {
  const ui = uiFixture();

  /** A new box in PROJECT, its Console tab open and connected. */
  async function consoleOfNewBox(prefix: string): Promise<{ name: string; page: Page; term: ConsoleView }> {
    const name = uniqueName(prefix);
    await createBoxViaApi(ui, PROJECT, name);
    const page = await ui.open({ route: `/projects/${PROJECT}/boxes/${name}/console` });
    const term = new ConsoleView(page);
    await term.waitConnected();
    return { name, page, term };
  }

  test('a console echoes, follows the pane size, and after a reload replays its session', async () => {
    const name = uniqueName('shell');
    await createBoxViaApi(ui, PROJECT, name);
    const page = await ui.open({ viewport: { width: 1200, height: 800 }, route: `/projects/${PROJECT}/boxes` });
    const list = new BoxListPage(page);
    const term = await list.openConsole(name);

    await term.type('echo "hel""lo-$((6*7))"\n');
    await term.waitForText(/^hello-42$/m);
    // Headless Chromium has no GPU (its WebGL runs on the CPU): xterm's DOM renderer draws the rows.
    await page.locator('.xterm-rows').getByText('hello-42').waitFor();

    await term.type('stty size\n');
    const [, rows1, cols1] = await term.waitForText(/^(\d+) (\d+)$/m);
    await page.setViewportSize({ width: 1600, height: 950 });
    await page.waitForTimeout(400);
    await term.type('clear; stty size\n');
    const [, rows2, cols2] = await term.waitForText(new RegExp(`^(?!${rows1} ${cols1}$)(\\d+) (\\d+)$`, 'm'));
    assert.ok(Number(cols2) > Number(cols1), `a wider pane gives more columns (${cols1} → ${cols2})`);
    assert.ok(Number(rows2) > Number(rows1), `a taller pane gives more rows (${rows1} → ${rows2})`);
    if (process.env.BOXDESK_SCREENSHOTS) {
      await term.type('uname -a; ls -l /\n');
      await term.waitForText(/ proc$/m);
      await screenshots(page, 'console');
    }

    // Same session after a reload: the screen is replayed and the shell kept its variable.
    await term.type('MARK=kept-$((3*5)); echo "before-$((2*2))-reload"\n');
    await term.waitForText(/^before-4-reload$/m);
    await page.reload();
    await term.waitConnected();
    await term.waitForText(/^before-4-reload$/m);
    await term.type('echo "mark=$MARK"\n');
    await term.waitForText(/^mark=kept-15$/m);
  });

  test('when the socket drops, the console reattaches to the same session by itself', async () => {
    const name = uniqueName('drop');
    await createBoxViaApi(ui, PROJECT, name);
    const page = await ui.open();
    // Playwright relays the console's socket, so the test can cut it on both sides like a network drop.
    const relays: { page: WebSocketRoute; server: WebSocketRoute }[] = [];
    await page.routeWebSocket(/\/console\?/, (ws) => relays.push({ page: ws, server: ws.connectToServer() }));
    await page.goto(`${ui.core().url}/#/projects/${PROJECT}/boxes/${name}/console`);
    const term = new ConsoleView(page);
    await term.waitConnected();
    await term.type('V=seven; echo "pre-$((1+1))"\n');
    await term.waitForText(/^pre-2$/m);

    const first = relays[0]!;
    await first.server.close({ code: 4002, reason: 'network drop' });
    await first.page.close({ code: 4002, reason: 'network drop' });
    await term.state().filter({ hasText: 'reconnecting' }).waitFor();
    await term.waitConnected();
    assert.match(relays[1]?.page.url() ?? '', /[?&]session=ses_/, 'the second socket reattaches to the session');
    await term.waitForText(/^pre-2$/m);
    await term.type('echo "v=$V"\n');
    await term.waitForText(/^v=seven$/m);
  });

  test('a console that exits says so and offers a new session; several consoles live side by side', async () => {
    const { name, page, term } = await consoleOfNewBox('tabs');
    await term.type('echo "first-$((0+1))"\n', 1);
    await term.waitForText(/^first-1$/m, 1);

    await term.newConsole.click();
    await term.waitConnected(2);
    await term.type('echo "second-$((1+1))"\n', 2);
    await term.waitForText(/^second-2$/m, 2);

    // Away to another tab of the box and back: both consoles reattach with their output.
    const detail = new BoxDetailPage(page, name);
    await detail.tab('Overview').click();
    await detail.details.waitFor();
    await detail.tab('Console').click();
    await term.waitConnected(1);
    await term.waitForText(/^first-1$/m, 1);
    await term.tabs.getByRole('tab', { name: 'Console 2' }).click();
    await term.waitConnected(2);
    await term.waitForText(/^second-2$/m, 2);

    await term.tabs.getByRole('tab', { name: 'Console 1' }).click();
    await term.type('exit 3\n', 1);
    await term.ended().filter({ hasText: 'code 3' }).waitFor();
    await term.startNewSession().click();
    await term.waitConnected(1);
    await term.type('echo "fresh-$((2+3))"\n', 1);
    await term.waitForText(/^fresh-5$/m, 1);

    // Closing a console ends its session: its shell is gone from the box.
    await term.tabs.getByRole('tab', { name: 'Console 2' }).click();
    await term.type('sleep 4242 &\n', 2);
    // The console's earlier prompts match any prompt pattern: the box's process list says when the job runs.
    const boxPath = `/v1/projects/${PROJECT}/boxes/${name}`;
    await untilProcess((m, p, b) => ui.api(m, p, b), boxPath, /sleep 4242/);
    await term.closeButton(2).click();
    await term.tabs.getByRole('tab', { name: 'Console 2' }).waitFor({ state: 'detached' });
    await untilNoProcess((m, p, b) => ui.api(m, p, b), boxPath, /sleep 4242/);
  });

  test('a yes flood does not freeze the window, and Ctrl-C stops it', async () => {
    const { page, term } = await consoleOfNewBox('flood');
    await term.type('yes flood-line-$((2*21))\n');
    await term.waitForText(/^flood-line-42$/m);
    await page.waitForTimeout(800);

    // While the flood runs the window still answers: typing in a field lands at once, the palette opens.
    const search = page.getByRole('textbox', { name: 'Search Console 1' });
    await search.fill('still responsive');
    assert.equal(await search.inputValue(), 'still responsive');
    await term.press('Control+c');
    await term.type('clear; echo "after-$((9*9))"\n');
    await term.waitForText(/^after-81$/m, 1, 30_000);
    const heap = await page.evaluate(
      () => (performance as unknown as { memory?: { usedJSHeapSize: number } }).memory?.usedJSHeapSize ?? 0,
    );
    assert.ok(heap < 300 * 1024 * 1024, `the page's heap stays bounded: ${Math.round(heap / 1024 / 1024)} MiB`);
  });

  test('the cursor blinks once typing pauses, stays lit after 10 s idle, and never for less motion', async () => {
    const name = uniqueName('blink');
    await createBoxViaApi(ui, PROJECT, name);
    // A context of its own, its clock faked from before the window loads (the idle wait is skipped, not waited out).
    const page = await ui.open({
      isolated: true,
      fakeClock: true,
      route: `/projects/${PROJECT}/boxes/${name}/console`,
    });
    await page.emulateMedia({ reducedMotion: 'no-preference' });
    const term = new ConsoleView(page);
    await term.waitConnected();
    const blinking = term.terminal().locator('.xterm-cursor-blink');
    // Lit while keys and output come (cursor-blink.test.ts has the timings), blinking half a second
    // after. The shell's prompt can still come after the line the test waited for, and lights it
    // again: the clock goes on a second at a time until it blinks.
    const untilBlinking = async () => {
      for (let second = 0; second < 20 && (await blinking.count()) === 0; second++) {
        await page.clock.fastForward(1_000);
        await page.waitForTimeout(100);
      }
      await blinking.waitFor({ timeout: 1_000 });
    };

    await term.type('echo "in-$((2*3))-use"\n');
    await term.waitForText(/^in-6-use$/m);
    await untilBlinking();
    await page.clock.fastForward(11_000);
    await blinking.waitFor({ state: 'detached' });
    await term.type('echo again\n');
    await term.waitForText(/^again$/m);
    await untilBlinking();

    // As a user who asks for less motion (the other tests' windows): the cursor never blinks.
    await page.emulateMedia({ reducedMotion: 'reduce' });
    await term.type('echo "still-$((4*4))"\n');
    await term.waitForText(/^still-16$/m);
    assert.equal(await blinking.count(), 0, 'no blinking cursor with reduced motion');
  });

  test('the Logs tab shows the main process output and follows new lines', async () => {
    const name = uniqueName('logs');
    await createBoxViaApi(ui, PROJECT, name);
    const say = async (line: string) => {
      // PID 1's stdout is the box's output stream.
      const res = await ui.api('POST', `/v1/projects/${PROJECT}/boxes/${name}/exec`, {
        command: ['sh', '-c', `echo ${line} > /proc/1/fd/1`],
      });
      assert.equal(((await res.json()) as { exit_code: number }).exit_code, 0);
    };
    await say('first-line');
    const page = await ui.open({ route: `/projects/${PROJECT}/boxes/${name}/overview` });
    const detail = new BoxDetailPage(page, name);
    // The page loads while the core may still be busy with the flood test's box: a longer wait.
    await detail.tab('Logs').click({ timeout: 45_000 });
    const logs = new LogsView(page);
    await logs.log.getByText('first-line').waitFor();
    assert.equal(await logs.follow.isChecked(), true);

    await say('second-line');
    await logs.log.getByText('second-line').waitFor();

    await logs.search.fill('second');
    await logs.log.getByText('first-line').waitFor({ state: 'detached' });
    await logs.log.getByText('second-line').waitFor();

    const [download] = await Promise.all([page.waitForEvent('download'), logs.download.click()]);
    assert.equal(download.suggestedFilename(), `${PROJECT}-${name}.log`);
    const saved = (await downloaded(download)).toString('utf8');
    assert.match(saved, /first-line\n(.*\n)*second-line/, 'the download has all of it, unfiltered');
  });
});

describe('a console the window shows outlives its session grace period', () => {
  // A short grace period: without the window holding it, a detached session would end in 2 s.
  const ui = uiFixture({ args: ['--session-grace', '2'] });

  test('on another tab, and on another page, past the grace period: coming back shows its scrollback and the same shell', async () => {
    const project = uniqueName('keep');
    const name = uniqueName('kept');
    await createBoxViaApi(ui, project, name);
    const page = await ui.open({ route: `/projects/${project}/boxes/${name}/console` });
    const term = new ConsoleView(page);
    await term.waitConnected();
    await term.type('KEPT=$$; echo "before-$((20+3))"\n');
    await term.waitForText(/^before-23$/m);

    const detail = new BoxDetailPage(page, name);
    await detail.tab('Logs').click();
    await page.waitForTimeout(4_000);
    await detail.tab('Console').click();
    await term.waitForText(/^before-23$/m);
    await term.type('echo "same-shell-$(( $$ == KEPT ))"\n');
    await term.waitForText(/^same-shell-1$/m);

    // Another page of the window (the box list), then back by the list's console link.
    await page.goto(page.url().replace(/\/boxes\/.*$/, '/boxes'));
    const list = new BoxListPage(page);
    await list.consoleLink(name).waitFor();
    await page.waitForTimeout(4_000);
    await list.consoleLink(name).click();
    await term.waitForText(/^same-shell-1$/m);
    await term.type('echo "still-$(( $$ == KEPT ))"\n');
    await term.waitForText(/^still-1$/m);
  });
});
