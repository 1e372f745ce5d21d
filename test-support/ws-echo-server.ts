import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

type Api = (method: string, pathname: string, body?: unknown, headers?: Record<string, string>) => Promise<Response>;

/**
 * A WebSocket echo server in busybox sh, for boxes of the test image (no node, no python there):
 * the RFC 6455 handshake (sha1sum, xxd, base64), then each masked client frame of up to 125 bytes
 * unmasked and sent back as the same kind of frame; a close frame is answered and ends it.
 */
const WS_ECHO_SH = fs.readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), 'ws-echo.sh'), 'utf8');

/** Starts the echo server on `port` in the box at `boxPath` (…/boxes/NAME), one shell per connection. */
export async function startWsEchoServer(api: Api, boxPath: string, port: number): Promise<void> {
  const put = await api('PUT', `${boxPath}/files?path=/ws-echo.sh&mode=755`, WS_ECHO_SH, {
    'content-type': 'application/octet-stream',
  });
  if (put.status !== 200) throw new Error(`writing the echo server: HTTP ${put.status} ${await put.text()}`);
  const res = await api('POST', `${boxPath}/exec`, {
    command: ['sh', '-c', `nc -ll -p ${port} -e /ws-echo.sh </dev/null >/dev/null 2>&1 &`],
  });
  const out = (await res.json()) as { exit_code: number; stderr: string };
  if (res.status !== 200 || out.exit_code !== 0)
    throw new Error(`starting the echo server: HTTP ${res.status} ${JSON.stringify(out)}`);
}
