// The Chromium the tests drive (Debian's, or BOXDESK_CHROMIUM), its command line, and one browser a
// lane's e2e files share. A launch costs Chromium about 3 s of CPU before the first page (its
// profile, its utility processes); the lane's twenty-odd files each launched one. Shared, each file
// connects and makes its own contexts, which are as separate as two browsers' (cookies, storage,
// cache), and closing its browser closes only them.
import { chromium } from 'playwright-core';

export const CHROMIUM = process.env.BOXDESK_CHROMIUM ?? '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-quic',
  '--no-first-run',
  '--disable-component-update',
  '--disable-sync',
];

/** What the shared browser also has on its command line: a file asking for these may use it. */
export const SHARED_EXTRA_ARGS = ['--host-resolver-rules=MAP *.localhost 127.0.0.1'];

/** Where test files find the shared browser (playwright's connect endpoint). */
export const SHARED_BROWSER_ENV = 'BOXDESK_CHROMIUM_WS';

/** Starts the shared browser; its endpoint goes to SHARED_BROWSER_ENV of the files' processes. */
export function launchSharedChromium() {
  return chromium.launchServer({ executablePath: CHROMIUM, args: [...CHROMIUM_ARGS, ...SHARED_EXTRA_ARGS] });
}
