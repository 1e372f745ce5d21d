import { spawn, type ChildProcess } from 'node:child_process';

/**
 * The least a reverse proxy in Node can do, for reference beside the preview proxy: a child
 * process with `http.createServer` and `http.request` through a keep-alive agent to one target,
 * headers copied, bodies piped; no routing, no access check, no timeouts. What it costs on this
 * machine is what any proxy built on Node's http module pays before doing anything of its own.
 */
const SCRIPT = `
const http = require('node:http');
const [host, port] = [process.argv[1], Number(process.argv[2])];
const agent = new http.Agent({ keepAlive: true, maxFreeSockets: 64 });
const server = http.createServer((req, res) => {
  const up = http.request({ host, port, method: req.method, path: req.url, headers: req.headers, agent }, (answer) => {
    res.writeHead(answer.statusCode, answer.headers);
    answer.pipe(res);
  });
  up.on('error', () => res.destroy());
  req.pipe(up);
});
server.listen(0, '127.0.0.1', () => process.stdout.write(server.address().port + '\\n'));
`;

export interface BareProxy {
  port: number;
  stop(): void;
}

export function startBareNodeProxy(host: string, port: number): Promise<BareProxy> {
  const child: ChildProcess = spawn(process.execPath, ['-e', SCRIPT, host, String(port)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the bare Node proxy exited with ${code} before listening`)));
    child.stdout!.once('data', (d: Buffer) =>
      resolve({ port: Number(d.toString().trim()), stop: () => void child.kill() }),
    );
  });
}
