import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { ROOT } from './core-process';

export const UI_DIR = path.join(ROOT, 'dist', 'renderer');

/** Builds the renderer when it is missing (BOXDESK_REBUILD_UI=1 forces it); throws with the build's output on failure. */
export function ensureRendererBuilt(): void {
  if (!process.env.BOXDESK_REBUILD_UI && fs.existsSync(path.join(UI_DIR, 'index.html'))) return;
  const build = spawnSync('npm', ['run', 'build:renderer'], { cwd: ROOT, encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`npm run build:renderer failed:\n${build.stdout}\n${build.stderr}`);
}

/** Headless Chromium from the system (/usr/bin/chromium, or BOXDESK_CHROMIUM); `extraArgs` go on its command line. */
export function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.BOXDESK_CHROMIUM ?? '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-quic',
      '--no-first-run',
      '--disable-component-update',
      '--disable-sync',
      ...extraArgs,
    ],
  });
}
