import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * The egress tests' client (test-support/egress-client/main.go), built static with Go once per
 * source (kept in the temp dir): Go's net/http follows HTTP(S)_PROXY and its crypto/x509 trusts
 * SSL_CERT_FILE by themselves, as a program in a box would. Needs Go (as the agent's build does).
 */
export function egressClientBinary(): string {
  const source = path.resolve('test-support/egress-client/main.go');
  const digest = createHash('sha256').update(fs.readFileSync(source)).digest('hex').slice(0, 12);
  const out = path.join(os.tmpdir(), `boxdesk-egress-client-${digest}`);
  if (fs.existsSync(out)) return out;
  const env = { ...process.env, CGO_ENABLED: '0', GO111MODULE: 'off' };
  execFileSync('go', ['build', '-o', `${out}.${process.pid}`, source], { env, stdio: 'pipe' });
  fs.renameSync(`${out}.${process.pid}`, out);
  return out;
}
