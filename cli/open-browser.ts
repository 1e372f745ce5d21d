import { spawn } from 'node:child_process';

/** The command that opens a URL in the system browser on this platform. */
export function browserCommand(platform: NodeJS.Platform, url: string): { command: string; args: string[] } {
  if (platform === 'darwin') return { command: 'open', args: [url] };
  // `start` is a cmd builtin; its first quoted argument is the window title.
  if (platform === 'win32') return { command: 'cmd', args: ['/c', 'start', '""', url.replace(/&/g, '^&')] };
  return { command: 'xdg-open', args: [url] };
}

/**
 * Opens `url` in the system browser; false when there is none to start (no
 * xdg-open, a headless machine), so the caller can print the URL instead.
 */
export function openInBrowser(url: string, platform: NodeJS.Platform = process.platform): Promise<boolean> {
  const { command, args } = browserCommand(platform, url);
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn(command, args, { stdio: 'ignore', detached: true });
    } catch {
      return resolve(false);
    }
    // xdg-open exits non-zero when it finds no browser; open and start return at once. One that
    // stays (a browser run in the foreground through $BROWSER) is taken as opened after 3 s.
    const timer = setTimeout(() => {
      child.unref();
      resolve(true);
    }, 3000);
    child.once('error', () => {
      clearTimeout(timer);
      resolve(false);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code === 0);
    });
  });
}
