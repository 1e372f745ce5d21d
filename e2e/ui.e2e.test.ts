import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import { ROOT, TEST_IMAGE, startCoreProcess, type CoreProcess } from '../test-support/core-process';
import { BoxdeskPage } from './boxdesk-page';

const UI_DIR = path.join(ROOT, 'dist', 'renderer');

function ensureRendererBuilt(): void {
  if (fs.existsSync(path.join(UI_DIR, 'index.html'))) return;
  const build = spawnSync('npm', ['run', 'build:renderer'], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(build.status, 0, `npm run build:renderer failed:\n${build.stdout}\n${build.stderr}`);
}

function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.BOXDESK_CHROMIUM ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-quic', '--no-first-run', '--disable-component-update', '--disable-sync'],
  });
}

/** A core serving the UI and a browser on it; `after` stops both even when a test failed. */
function uiFixture(env?: NodeJS.ProcessEnv) {
  const state: { core?: CoreProcess; browser?: Browser; contexts: BrowserContext[] } = { contexts: [] };
  before(async () => {
    ensureRendererBuilt();
    state.core = await startCoreProcess({ args: ['--ui-dir', UI_DIR], env });
    state.browser = await launchChromium();
  });
  after(async () => {
    await Promise.allSettled(state.contexts.map((c) => c.close()));
    await state.browser?.close().catch(() => undefined);
    await state.core?.stop();
  });
  return {
    core: () => state.core!,
    async openUi(): Promise<BoxdeskPage> {
      const context = await state.browser!.newContext();
      context.setDefaultTimeout(10_000);
      state.contexts.push(context);
      const page = new BoxdeskPage(await context.newPage());
      await page.open(`${state.core!.url}/`);
      return page;
    },
  };
}

describe('the UI served by the headless core', () => {
  const fixture = uiFixture();

  test('shows the version and a healthy engine, then lists the bases after signing in', async () => {
    const { version } = (await (await fetch(`${fixture.core().url}/version`)).json()) as { version: string };
    const ui = await fixture.openUi();

    await ui.version(version).waitFor();
    await ui.engine('Engine: healthy').waitFor();
    assert.equal(await ui.basesTable.count(), 0, 'no bases before signing in');

    await ui.signIn(fixture.core().token);
    const row = ui.baseRow('default');
    await row.waitFor();
    assert.equal(await row.getByRole('cell', { name: TEST_IMAGE, exact: true }).count(), 1, `the default base's image is ${TEST_IMAGE}`);

    // The token lives in this tab's session: a reload stays signed in.
    await ui.page.reload();
    await ui.baseRow('default').waitFor();
    await ui.signOutButton.click();
    await ui.tokenField.waitFor();
    assert.equal(await ui.basesTable.count(), 0, 'signing out hides the bases');

    if (process.env.BOXDESK_SCREENSHOT) {
      await ui.signIn(fixture.core().token);
      await ui.baseRow('default').waitFor();
      await ui.page.screenshot({ path: process.env.BOXDESK_SCREENSHOT, fullPage: true });
    }
  });

  test('a wrong token shows the 401 problem detail next to the field', async () => {
    const res = await fetch(`${fixture.core().url}/v1/bases`, { headers: { authorization: 'Bearer not-a-real-token' } });
    assert.equal(res.status, 401);
    const { detail } = (await res.json()) as { detail: string };
    assert.ok(detail, 'the 401 carries a detail');

    const ui = await fixture.openUi();
    await ui.signIn('not-a-real-token');
    await ui.signInError.filter({ hasText: detail }).waitFor();
    assert.equal(await ui.tokenField.getAttribute('aria-invalid'), 'true');
    assert.equal(await ui.basesTable.count(), 0);
  });
});

describe('the UI when the container engine is unreachable', () => {
  const fixture = uiFixture({ DOCKER_HOST: 'unix:///nonexistent/boxdesk-e2e-docker.sock' });

  test('says the engine is unreachable and why', async () => {
    const ui = await fixture.openUi();
    await ui.engine(/^Engine: unreachable — \S+/).waitFor();
    assert.equal(await ui.engine('Engine: healthy').count(), 0);
  });
});
