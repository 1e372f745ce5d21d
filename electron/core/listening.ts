import fs from 'node:fs';
import path from 'node:path';
import { toDisposable, type Disposable } from './lifetime';

/** In the data dir: where this core listens, so the CLI finds a core on another port (the CLI and the SDK read it: sdk/src/connection.ts). */
export const LISTENING_FILE = 'listening.json';

/**
 * Writes `{url, proxy_port, pid}` to the data dir's listening.json (atomically: a reader never sees
 * half of it); the returned disposable removes it when the core closes, unless another core has
 * written it since.
 */
export function announceListening(dataDir: string, url: string, proxyPort: number): Disposable {
  const file = path.join(dataDir, LISTENING_FILE);
  const temp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temp, `${JSON.stringify({ url, proxy_port: proxyPort, pid: process.pid })}\n`, { mode: 0o644 });
  fs.renameSync(temp, file);
  return toDisposable(() => {
    try {
      const { pid } = JSON.parse(fs.readFileSync(file, 'utf8')) as { pid?: number };
      if (pid === process.pid) fs.rmSync(file, { force: true });
    } catch {
      // gone already, or not ours to judge
    }
  });
}
