import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { after, before, test } from 'node:test';
import * as tar from 'tar-stream';
import { DockerEngine } from './docker-engine';

const engine = new DockerEngine();
const tag = `engtest-${randomBytes(4).toString('hex')}`;
const labels = { 'boxdesk.test': tag };
const created: string[] = [];

async function box(name: string, command: string[]): Promise<string> {
  const id = await engine.createContainer({
    name: `${tag}-${name}`,
    image: 'boxdesk-test/busybox:1',
    command,
    hostname: name,
    env: {},
    labels,
    limits: { cpus: 1, ramMb: 128, pidsLimit: 256 },
    storageGb: null,
    graceSeconds: 1,
  });
  created.push(id);
  return id;
}

function tarOf(files: Record<string, string>): Readable {
  const pack = tar.pack();
  for (const [name, content] of Object.entries(files)) pack.entry({ name, mode: 0o640 }, content);
  pack.finalize();
  return pack as unknown as Readable; // tar-stream's typings predate Readable's newer members
}

async function untar(stream: Readable): Promise<Record<string, string>> {
  const extract = tar.extract();
  const files: Record<string, string> = {};
  const done = new Promise<void>((resolve, reject) => {
    extract.on('entry', (header, body, next) => {
      const parts: Buffer[] = [];
      body.on('data', (b: unknown) => parts.push(b as Buffer));
      body.on('end', () => {
        files[header.name] = Buffer.concat(parts).toString('utf8');
        next();
      });
    });
    extract.on('finish', resolve);
    extract.on('error', reject);
  });
  stream.pipe(extract);
  await done;
  return files;
}

let running: string;
let stopped: string;

before(async () => {
  running = await box('run', ['sleep', '600']);
  await engine.startContainer(running);
  stopped = await box('stopped', ['true']);
});

after(async () => {
  for (const id of created) await engine.removeContainer(id);
  await engine.removeVolume(`${tag}-vol`);
  await engine.removeNetwork(`${tag}-net`);
});

for (const which of ['running', 'stopped'] as const) {
  test(`archive put → stat → get round trip on a ${which} container`, async () => {
    const id = which === 'running' ? running : stopped;
    await engine.putArchive(id, '/tmp', tarOf({ 'hello.txt': `hello ${which}\n` }));
    const stat = await engine.statPath(id, '/tmp/hello.txt');
    assert.equal(stat?.name, 'hello.txt');
    assert.equal(stat?.type, 'file');
    assert.equal(stat?.size, `hello ${which}\n`.length);
    assert.equal(stat?.mode, 0o640);
    assert.equal((await engine.statPath(id, '/tmp'))?.type, 'directory');
    assert.equal(await engine.statPath(id, '/tmp/nothing-here'), null);
    const files = await untar(await engine.getArchive(id, '/tmp/hello.txt'));
    assert.equal(files['hello.txt'], `hello ${which}\n`);
    const changes = await engine.containerChanges(id);
    assert.ok(
      changes.some((c) => c.path === '/tmp/hello.txt' && c.kind === 'added'),
      JSON.stringify(changes),
    );
  });
}

test('removePath on a stopped container: a tree recursively, a long name, never a directory replaced by a file', async () => {
  const long = 'n'.repeat(150);
  await engine.putArchive(stopped, '/tmp', tarOf({ 'rm/a/b.txt': 'b', 'rm/c.txt': 'c', [long]: 'long' }));
  await engine.removePath(stopped, '/tmp/rm');
  assert.equal(await engine.statPath(stopped, '/tmp/rm'), null);
  await engine.removePath(stopped, `/tmp/${long}`);
  assert.equal(await engine.statPath(stopped, `/tmp/${long}`), null);
  assert.equal((await engine.statPath(stopped, '/tmp'))?.type, 'directory', 'the parent stays');
  await assert.rejects(
    engine.putArchive(stopped, '/', tarOf({ tmp: 'not a directory' })),
    (err: Error & { kind?: string }) => err.kind === 'invalid',
  );
  assert.equal((await engine.statPath(stopped, '/tmp'))?.type, 'directory');
});

test('statPath on a missing container is an engine not_found, not null', async () => {
  await assert.rejects(
    engine.statPath('no-such-container-' + tag, '/tmp'),
    (err: Error & { kind?: string }) => err.kind === 'not_found',
  );
});

test('volumes: create, inspect, list by label, remove', async () => {
  const name = `${tag}-vol`;
  const volume = await engine.createVolume(name, labels);
  assert.equal(volume.name, name);
  assert.deepEqual(volume.labels, labels);
  assert.equal((await engine.inspectVolume(name))?.name, name);
  assert.deepEqual(
    (await engine.listVolumes(labels)).map((v) => v.name),
    [name],
  );
  await engine.removeVolume(name);
  assert.equal(await engine.inspectVolume(name), null);
  await engine.removeVolume(name); // gone already: not an error
});

test('networks: ensure is idempotent; connect; a served port answers through connect()', async () => {
  const name = `${tag}-net`;
  const id = await engine.ensureNetwork(name, labels);
  assert.equal(await engine.ensureNetwork(name, labels), id);
  const server = await box('httpd', [
    'sh',
    '-c',
    'mkdir -p /www && echo served-by-box > /www/index.html && exec httpd -f -p 8080 -h /www',
  ]);
  await engine.connectNetwork(name, server);
  await engine.startContainer(server);
  await engine.connectNetwork(name, server); // already connected: not an error
  let body = '';
  for (let i = 0; i < 50 && !body.includes('served-by-box'); i++) {
    try {
      const socket = await engine.connect(server, 8080);
      body = await new Promise<string>((resolve, reject) => {
        let text = '';
        socket.on('data', (b: Buffer) => (text += b.toString('utf8')));
        socket.on('end', () => resolve(text));
        socket.on('error', reject);
        socket.end('GET / HTTP/1.0\r\n\r\n');
      });
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  assert.match(body, /served-by-box/);
  await engine.removeContainer(server);
  await engine.removeNetwork(name);
  await engine.removeNetwork(name); // gone already: not an error
});

test('stats: one sample with memory in use, and a stream of samples until aborted', async () => {
  const sample = await engine.stats(running);
  assert.ok(sample.memory_bytes > 0, JSON.stringify(sample));
  assert.ok(
    sample.memory_limit_bytes >= 128 * 1024 * 1024 && sample.memory_limit_bytes <= 129 * 1024 * 1024,
    JSON.stringify(sample),
  );
  assert.ok(sample.pids >= 1);
  const samples: number[] = [];
  const controller = new AbortController();
  await engine.streamStats(
    running,
    (s) => {
      samples.push(s.memory_bytes);
      if (samples.length === 2) controller.abort();
    },
    controller.signal,
  );
  assert.equal(samples.length, 2);
});

test('exec hands up demultiplexed stdout and stderr', async () => {
  const execId = await engine.createExec(running, {
    command: ['sh', '-c', 'echo out; echo err >&2'],
    env: {},
    tty: false,
    stdin: false,
  });
  const streams = await engine.startExec(execId, { tty: false, stdin: false });
  const read = (s: Readable) =>
    new Promise<string>((resolve) => {
      let text = '';
      s.on('data', (b: Buffer) => (text += b.toString('utf8')));
      s.on('end', () => resolve(text));
    });
  const [out, err] = await Promise.all([read(streams.stdout), read(streams.stderr)]);
  assert.equal(out, 'out\n');
  assert.equal(err, 'err\n');
});

test('events arrive as domain kinds', async () => {
  const seen: string[] = [];
  const watch = await engine.watchEvents(
    labels,
    (e) => seen.push(`${e.kind}${e.exitCode !== undefined ? ':' + e.exitCode : ''}`),
    () => undefined,
  );
  const id = await box('evt', ['sh', '-c', 'exit 3']);
  await engine.startContainer(id);
  for (let i = 0; i < 50 && !seen.includes('exited:3'); i++) await new Promise((r) => setTimeout(r, 100));
  await engine.removeContainer(id);
  for (let i = 0; i < 50 && !seen.includes('removed'); i++) await new Promise((r) => setTimeout(r, 100));
  await watch.dispose();
  assert.ok(seen.includes('started') && seen.includes('exited:3') && seen.includes('removed'), seen.join(','));
});
