import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { ROOT } from './core-process';
import { CHROMIUM, CHROMIUM_ARGS, SHARED_BROWSER_ENV, SHARED_EXTRA_ARGS } from '../scripts/chromium-server.mjs';

export const UI_DIR = path.join(ROOT, 'dist', 'renderer');

/** Builds the renderer when it is missing (BOXDESK_REBUILD_UI=1 forces it); throws with the build's output on failure. */
export function ensureRendererBuilt(): void {
  if (!process.env.BOXDESK_REBUILD_UI && fs.existsSync(path.join(UI_DIR, 'index.html'))) return;
  const build = spawnSync('npm', ['run', 'build:renderer'], { cwd: ROOT, encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`npm run build:renderer failed:\n${build.stdout}\n${build.stderr}`);
}

/**
 * Headless Chromium from the system (/usr/bin/chromium, or BOXDESK_CHROMIUM); `extraArgs` go on its
 * command line. Under scripts/run-tests.mjs, the lane's shared browser, when it has those arguments.
 */
export function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  const shared = process.env[SHARED_BROWSER_ENV];
  if (shared && extraArgs.every((arg) => SHARED_EXTRA_ARGS.includes(arg))) return chromium.connect(shared);
  return chromium.launch({ executablePath: CHROMIUM, args: [...CHROMIUM_ARGS, ...extraArgs] });
}
