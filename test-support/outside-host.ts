import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';

/**
 * An "outside" host for egress tests, with no internet needed: a network namespace joined to
 * the host by a veth pair (the host's end 10.213.N.1), answering on two addresses of its own
 * (10.213.N.2 and .3): HTTP on port 80 ("outside <address>") and DNS on UDP 53 (every name is
 * 10.213.N.2). Boxes reach it as they would the internet: through their gateway and the host's
 * forwarding. Needs root (ip netns).
 */
export interface OutsideHost {
  /** The two addresses it answers on. */
  addresses: [string, string];
  close(): void;
}

const SERVER = `
const http = require('node:http');
const dgram = require('node:dgram');
const [a, b] = process.argv.slice(1);
for (const address of [a, b])
  http.createServer((req, res) => res.end('outside ' + address)).listen(80, address);
const dns = dgram.createSocket('udp4');
dns.on('message', (q, from) => {
  const answer = Buffer.from([0xc0, 0x0c, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, ...a.split('.').map(Number)]);
  const head = Buffer.from(q.subarray(0, 12));
  head.writeUInt16BE(0x8180, 2);
  head.writeUInt16BE(1, 6);
  dns.send(Buffer.concat([head, q.subarray(12), answer]), from.port, from.address);
});
// With a certificate (OUTSIDE_CERT, OUTSIDE_KEY): an echo of each request (JSON: host, url,
// headers) over HTTP on 8080 and HTTPS on 443.
if (process.env.OUTSIDE_CERT) {
  const echo = (req, res) => res.end(JSON.stringify({ host: req.headers.host, url: req.url, headers: req.headers }));
  const tls = { cert: process.env.OUTSIDE_CERT, key: process.env.OUTSIDE_KEY };
  for (const address of [a, b]) {
    http.createServer(echo).listen(8080, address);
    require('node:https').createServer(tls, echo).listen(443, address);
  }
}
dns.bind(53, a, () => console.log('ready'));
`;

type Certificate = { cert: string; key: string };

/**
 * `tls`: also echo each request as JSON, over HTTP on 8080 and HTTPS on 443 with this certificate
 * (or the one made for the host's two addresses).
 */
export async function startOutsideHost(
  options: { tls?: Certificate | ((addresses: [string, string]) => Certificate) } = {},
): Promise<OutsideHost & { tls?: Certificate }> {
  const n = 100 + (randomBytes(1)[0]! % 150);
  const ns = `bdout${randomBytes(3).toString('hex')}`;
  const [hostEnd, nsEnd] = [`${ns}h`, `${ns}n`];
  const ip = (...args: string[]) => execFileSync('ip', args, { stdio: 'pipe' });
  const net = `10.213.${n}`;
  ip('netns', 'add', ns);
  const close = () => {
    server?.kill();
    try {
      ip('netns', 'del', ns); // its end of the pair goes with it, and so the host's
    } catch {
      // already gone
    }
  };
  let server: ReturnType<typeof spawn> | undefined;
  const tls = typeof options.tls === 'function' ? options.tls([`${net}.2`, `${net}.3`]) : options.tls;
  try {
    ip('link', 'add', hostEnd, 'type', 'veth', 'peer', 'name', nsEnd);
    ip('link', 'set', nsEnd, 'netns', ns);
    ip('addr', 'add', `${net}.1/24`, 'dev', hostEnd);
    ip('link', 'set', hostEnd, 'up');
    for (const cmd of [
      ['addr', 'add', `${net}.2/24`, 'dev', nsEnd],
      ['addr', 'add', `${net}.3/24`, 'dev', nsEnd],
      ['link', 'set', nsEnd, 'up'],
      ['link', 'set', 'lo', 'up'],
      ['route', 'add', 'default', 'via', `${net}.1`],
    ])
      ip('netns', 'exec', ns, 'ip', ...cmd);
    server = spawn('ip', ['netns', 'exec', ns, process.execPath, '-e', SERVER, `${net}.2`, `${net}.3`], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: tls ? { ...process.env, OUTSIDE_CERT: tls.cert, OUTSIDE_KEY: tls.key } : process.env,
    });
    await new Promise<void>((resolve, reject) => {
      server!.stdout!.once('data', () => resolve());
      server!.once('exit', (code) => reject(new Error(`the outside host's servers exited (${code})`)));
    });
  } catch (err) {
    close();
    throw err;
  }
  return { addresses: [`${net}.2`, `${net}.3`], close, ...(tls ? { tls } : {}) };
}
