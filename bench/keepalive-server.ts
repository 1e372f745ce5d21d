import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execInBox, type BenchContext } from './scenarios/context';

const SOURCE = path.join(path.dirname(fileURLToPath(import.meta.url)), 'keepalive-server');
const IN_BOX = '/usr/local/bin/bench-httpd';

/**
 * Builds the bench's keep-alive HTTP server (keepalive-server/: Go, standard library only, static)
 * for this machine into a temporary file. Busybox httpd closes every connection after one answer,
 * so it cannot show what keep-alive does for the proxy.
 */
function build(): string {
  const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'boxdesk-bench-httpd-')), 'bench-httpd');
  const arch = { x64: 'amd64', arm64: 'arm64' }[process.arch as string];
  if (!arch) throw new Error(`the bench's HTTP server is built for amd64 and arm64 only, not ${process.arch}`);
  try {
    execFileSync('go', ['build', '-trimpath', '-ldflags', '-s -w', '-o', out, '.'], {
      cwd: SOURCE,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, CGO_ENABLED: '0', GOOS: 'linux', GOARCH: arch, GOPROXY: 'off' },
    });
  } catch (err) {
    throw new Error(
      `could not build bench/keepalive-server with Go (install it, e.g. apt-get install golang-go): ${String((err as { stderr?: Buffer }).stderr ?? err)}`,
      { cause: err },
    );
  }
  return out;
}

/** Copies the server into the box through the files API and starts it on `port`, in the background. */
export async function startKeepAliveServer(ctx: BenchContext, box: string, port: number): Promise<void> {
  const binary = build();
  try {
    const res = await fetch(
      `${ctx.core.url}/v1/projects/${ctx.project}/boxes/${box}/files?path=${encodeURIComponent(IN_BOX)}`,
      {
        method: 'PUT',
        headers: { authorization: `Bearer ${ctx.core.token}`, 'content-type': 'application/octet-stream' },
        body: fs.readFileSync(binary),
      },
    );
    if (res.status !== 200) throw new Error(`upload of the bench server: HTTP ${res.status} ${await res.text()}`);
  } finally {
    fs.rmSync(path.dirname(binary), { recursive: true, force: true });
  }
  const started = await execInBox(ctx, box, [
    'sh',
    '-c',
    `chmod +x ${IN_BOX} && (${IN_BOX} -addr :${port} >/dev/null 2>&1 &) && for i in 1 2 3 4 5 6 7 8 9 10; do wget -q -O /dev/null http://127.0.0.1:${port}/index.html && exit 0; sleep 0.2; done; exit 1`,
  ]);
  if (started.exit_code !== 0) throw new Error(`could not start the bench server: ${JSON.stringify(started)}`);
}
