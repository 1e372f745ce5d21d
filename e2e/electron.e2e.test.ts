import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { _electron, type ElectronApplication } from 'playwright-core';
import { ROOT, TEST_IMAGE, tempDataDir } from '../test-support/core-process';
import { AppShell } from './pages/app-shell';
import { BasesPage } from './pages/bases-page';

/** Electron's executable, looked up without electron/index.js (which would try to download it). */
function electronBinary(): { executable: string } | { reason: string } {
  const dir = path.join(ROOT, 'node_modules', 'electron');
  const pathFile = path.join(dir, 'path.txt');
  if (!fs.existsSync(pathFile))
    return { reason: `${path.relative(ROOT, pathFile)} is missing (the binary was never downloaded)` };
  const executable = path.join(
    process.env.ELECTRON_OVERRIDE_DIST_PATH ?? path.join(dir, 'dist'),
    fs.readFileSync(pathFile, 'utf8').trim(),
  );
  return fs.existsSync(executable) ? { executable } : { reason: `${executable} does not exist` };
}

function ensureBuilt(): void {
  const built = ['dist/renderer/index.html', 'dist/electron/main.cjs', 'dist/electron/preload.cjs'].every((f) =>
    fs.existsSync(path.join(ROOT, f)),
  );
  if (built) return;
  const build = spawnSync('npm', ['run', 'build'], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(build.status, 0, `npm run build failed:\n${build.stdout}\n${build.stderr}`);
}

test('the Electron window shows the core version', async (t) => {
  const binary = electronBinary();
  if ('reason' in binary) {
    const why = `Electron binary not installed: ${binary.reason}`;
    console.warn(
      `\n!!! SKIPPED the Electron e2e test — ${why}. The desktop window was NOT tested; install Electron's binary (node node_modules/electron/install.js) to run it.\n`,
    );
    t.skip(why);
    return;
  }
  ensureBuilt();
  const dataDir = tempDataDir('boxdesk-electron-');
  let app: ElectronApplication | undefined;
  try {
    app = await _electron.launch({
      executablePath: binary.executable,
      args: [ROOT],
      env: {
        ...process.env,
        BOXDESK_DATA_DIR: dataDir,
        BOXDESK_PORT: '0',
        BOXDESK_PROXY_PORT: '0',
        BOXDESK_DEFAULT_BASE: TEST_IMAGE,
        BOXDESK_DEFAULT_WARM: '0',
        BOXDESK_LOG_LEVEL: 'warn',
      },
      timeout: 60_000,
    });
    const page = await app.firstWindow();
    page.setDefaultTimeout(15_000);
    const ui = new AppShell(page);
    await ui.heading.waitFor();
    const { version } = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
    await ui.nav.getByText(`Boxdesk v${version}`).waitFor();
    assert.ok(page.url().startsWith('app://boxdesk/'), `the window loads app://boxdesk/, not ${page.url()}`);
    // The preload hands over the token, so the window is signed in.
    await ui.navLink('Bases').click();
    await new BasesPage(page).row('default').waitFor();
  } finally {
    await app?.close().catch(() => undefined);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
