import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { after, before, test } from 'node:test';
import type { EgressLog, EgressRecord } from '../../../shared/schemas/egress';
import { boxCli, ok, spawnBox } from '../../../test-support/cli-runner';
import { poll } from '../../../test-support/poll';
import { SseClient } from '../../../test-support/sse';
import { startOutsideHost, type OutsideHost } from '../../../test-support/outside-host';
import { tempDataDir } from '../../../test-support/core-process';
import { startTestCore, type TestCore } from '../../../test-support/test-core';

/*
 * The egress log on the real engine: one box whose allow list names one address of an "outside"
 * host (test-support/outside-host.ts) and not the other. What it tries, raw clients alike
 * (busybox nc), is in its log and denials are events.
 */

let t: TestCore;
/** The data dir, the test's own: the core is started again on it. */
const dataDir = tempDataDir();
let outside: OutsideHost;
let events: SseClient;
const project = `egress${randomBytes(3).toString('hex')}`;
const boxPath = `/v1/projects/${project}/boxes/watched`;
const box = boxCli(() => t, { project });

async function sh(script: string): Promise<string> {
  const res = await t.api('POST', `${boxPath}/exec`, { command: ['sh', '-c', script] });
  assert.equal(res.status, 200, await res.clone().text());
  return ((await res.json()) as { stdout: string }).stdout;
}

async function log(after = 0): Promise<EgressRecord[]> {
  const res = await t.api('GET', `${boxPath}/egress${after ? `?after=${after}` : ''}`);
  assert.equal(res.status, 200, await res.clone().text());
  return ((await res.json()) as EgressLog).items;
}

function waitForRecord(what: string, match: (r: EgressRecord) => boolean): Promise<EgressRecord> {
  return poll(async () => (await log()).find(match), { ms: 15_000, everyMs: 200, what });
}

const skip = process.getuid?.() === 0 ? false : 'standing up the outside host (ip netns) needs root';

before(async () => {
  if (skip) return;
  outside = await startOutsideHost();
  t = await startTestCore({ dataDir });
  events = new SseClient(`${t.url}/v1/events`, t.token);
  const network = { egress: 'allowlist', allow: [`${outside.addresses[0]}:80`] };
  const res = await t.api('POST', `/v1/projects/${project}/boxes`, { name: 'watched', network });
  assert.equal(res.status, 201, await res.text());
});

after(async () => {
  events?.close();
  await t?.api('DELETE', boxPath);
  await t?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
  outside?.close();
});

test('a denied TCP connection is in the log and is a box.egress.denied event', { skip }, async () => {
  const [, closed] = outside.addresses;
  assert.match(await sh(`nc -w 2 ${closed} 80 </dev/null 2>&1; true`), /No route to host/);
  const record = await waitForRecord('the denied TCP record', (r) => r.address === closed && r.protocol === 'tcp');
  assert.deepEqual(
    { ...record, id: 0, at: '' },
    {
      id: 0,
      at: '',
      host: closed,
      address: closed,
      port: 80,
      protocol: 'tcp',
      allowed: false,
      bytes: 0,
    },
  );
  const event = await events.waitFor((e) => e.event === 'box.egress.denied');
  const data = (JSON.parse(event.data) as { data: { box: string; record: EgressRecord } }).data;
  assert.equal(data.box, 'watched');
  assert.equal(data.record.address, closed);
});

test('a denied UDP datagram is in the log', { skip }, async () => {
  const [, closed] = outside.addresses;
  // busybox's nc has no UDP: nslookup asking a server of its own sends UDP to its port 53.
  await sh(`nslookup example.com ${closed} 2>&1; true`);
  const record = await waitForRecord('the denied UDP record', (r) => r.protocol === 'udp' && r.port === 53);
  assert.equal(record.allowed, false);
  assert.equal(record.address, closed);
});

test('an allowed connection is in the log once it ends, with its bytes both ways', { skip }, async () => {
  const [open] = outside.addresses;
  const page = await sh(`printf 'GET / HTTP/1.0\\r\\n\\r\\n' | nc -w 3 ${open} 80`);
  assert.match(page, new RegExp(`outside ${open.replace(/\./g, '\\.')}`));
  const record = await waitForRecord('the allowed record', (r) => r.allowed && r.address === open);
  assert.equal(record.port, 80);
  assert.equal(record.protocol, 'tcp');
  // The request and the answer (its headers and body), with their IP and TCP headers.
  assert.ok(record.bytes > page.length, `bytes ${record.bytes}`);
  const newer = await log(record.id - 1);
  assert.equal(newer[0]?.id, record.id, '?after=ID gives the records after it');
});

test("an open box's log: a peer reached by the name it resolved is recorded under that name", { skip }, async () => {
  const boxes = `/v1/projects/${project}/boxes`;
  for (const name of ['peer', 'named']) {
    const res = await t.api('POST', boxes, { name });
    assert.equal(res.status, 201, await res.text());
  }
  const run = (box: string, script: string) =>
    t.api('POST', `${boxes}/${box}/exec`, { command: ['sh', '-c', script] }).then((r) => r.json());
  await run('peer', 'mkdir -p /tmp/w && echo peer > /tmp/w/index.html && httpd -p 8080 -h /tmp/w');
  // busybox's nc cannot resolve names itself: nslookup asks the engine's resolver, as any program would.
  const address = `$(nslookup peer 2>/dev/null | awk '/^Address: / {print $2}' | tail -n1)`;
  await run('named', `printf 'GET / HTTP/1.0\r\n\r\n' | nc -w 3 ${address} 8080`);
  const record = await poll(
    async () => {
      const res = await t.api('GET', `${boxes}/named/egress`);
      return ((await res.json()) as EgressLog).items.find((r) => r.port === 8080);
    },
    { ms: 15_000, everyMs: 200, what: "the record of the peer's connection" },
  );
  assert.equal(record.allowed, true);
  assert.match(record.host, /^peer(\.|$)/);
  assert.match(record.address ?? '', /^10\.210\./);
  for (const name of ['peer', 'named']) await t.api('DELETE', `${boxes}/${name}`);
});

test('an unknown box: 404', { skip }, async () => {
  const res = await t.api('GET', `/v1/projects/${project}/boxes/nobody/egress`);
  assert.equal(res.status, 404);
  assert.equal(((await res.json()) as { code: string }).code, 'not_found');
});

test('box egress NAME: the log as a table; -f prints new records as they come', { skip }, async () => {
  const [, closed] = outside.addresses;
  const listed = ok(await box('egress', 'watched'), 'box egress').stdout;
  assert.match(listed.split('\n')[0]!, /^TIME\s+VERDICT\s+PROTO\s+HOST\s+PORT\s+BYTES$/);
  assert.match(listed, new RegExp(`denied\\s+tcp\\s+${closed.replace(/\./g, '\\.')}\\s+80`));
  const json = ok(await box('egress', 'watched', '-o', 'json'), 'box egress -o json').stdout;
  assert.ok((JSON.parse(json) as EgressRecord[]).some((r) => r.address === closed && !r.allowed));

  const following = spawnBox(['--url', t.url, '--token', t.token, '-p', project, 'egress', 'watched', '-f']);
  let out = '';
  following.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  try {
    await poll(async () => out.includes('denied'), { ms: 10_000, everyMs: 50, what: 'the log so far' });
    await sh(`nc -w 2 ${closed} 4242 </dev/null 2>&1; true`);
    await poll(async () => /denied\s+tcp\s+\S+\s+4242/.test(out), { ms: 15_000, everyMs: 100, what: 'the new record' });
  } finally {
    following.kill();
  }
  assert.equal(out.match(/^TIME/gm)?.length, 1, 'the header once');
  const missing = await box('egress', 'nobody');
  assert.notEqual(missing.code, 0);
  assert.match(missing.stderr, /box "nobody" not found/);
});

test('a core started again watches the boxes already running: their log goes on (afresh)', { skip }, async () => {
  const [, closed] = outside.addresses;
  events.close();
  await t.close();
  t = await startTestCore({ dataDir });
  events = new SseClient(`${t.url}/v1/events`, t.token);
  assert.deepEqual(await log(), [], 'the log is in memory: a new core starts it afresh');
  await sh(`nc -w 2 ${closed} 5151 </dev/null 2>&1; true`);
  const record = await waitForRecord('a record after the restart', (r) => r.port === 5151);
  assert.equal(record.allowed, false);
});
