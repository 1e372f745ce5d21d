import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { after, before, test } from 'node:test';
import type { Box } from '../../../shared/schemas/box';
import type { Secret } from '../../../shared/schemas/secrets';
import type { EgressConnection } from './egress-proxy';
import { runBox } from '../../../test-support/cli-runner';
import { egressClientBinary } from '../../../test-support/egress-client';
import { startOutsideHost, type OutsideHost } from '../../../test-support/outside-host';
import { selfSigned } from '../../../test-support/test-certificate';
import { startTestCore, type TestCore } from '../../../test-support/test-core';

/*
 * Secrets through the egress proxy on the real engine. The "outside" is a network namespace
 * (test-support/outside-host.ts) echoing each request over HTTP (8080) and HTTPS (443) on two
 * addresses, named api.outside.test and other.outside.test by an --egress-hosts file. In the
 * box, a static Go client makes the requests as any program would: through HTTP(S)_PROXY,
 * trusting SSL_CERT_FILE.
 */

let t: TestCore;
let outside: OutsideHost;
let hostsFile: string;
let outsideCert: string;
const events: string[] = [];
const connections: EgressConnection[] = [];
const events$ = new AbortController();
const project = `sec${randomBytes(3).toString('hex')}`;
const P = `/v1/projects/${project}/boxes`;
const VALUE = `sk-REAL-${randomBytes(8).toString('hex')}`;
const KEY = `mk-REAL-${randomBytes(8).toString('hex')}`;
const suffix = randomBytes(3).toString('hex');
const openai = `openai-${suffix}`;
const maps = `maps-${suffix}`;
const OPENAI = `OPENAI_${suffix.toUpperCase()}`;

interface Run {
  exit_code: number;
  stdout: string;
  stderr: string;
}
interface Echo {
  host: string;
  url: string;
  headers: Record<string, string>;
}

async function sh(box: string, script: string): Promise<Run> {
  const res = await t.api('POST', `${P}/${box}/exec`, { command: ['sh', '-c', script] });
  assert.equal(res.status, 200, await res.clone().text());
  return (await res.json()) as Run;
}

async function put(box: string, file: string, body: Buffer | string, mode = '0644'): Promise<void> {
  const res = await fetch(`${t.url}${P}/${box}/files?path=${file}&mode=${mode}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${t.token}`, 'content-type': 'application/octet-stream' },
    body,
  });
  assert.ok(res.ok, await res.text());
}

/** What the outside echoed of the box's GET (the client's arguments as the box's shell expands them). */
async function echo(box: string, args: string): Promise<Echo> {
  const run = await sh(box, `/tmp/client ${args}`);
  assert.equal(run.exit_code, 0, run.stdout + run.stderr);
  return JSON.parse(run.stdout) as Echo;
}

const skip = process.getuid?.() === 0 ? false : 'standing up the outside host (ip netns) needs root';

before(async () => {
  if (skip) return;
  const certificate = selfSigned(['api.outside.test', 'other.outside.test']);
  outsideCert = certificate.cert;
  outside = await startOutsideHost({ tls: certificate });
  // The core's proxy checks the outside's certificate as it would a public one's.
  // (Node 22.15+; @types/node here predates it.)
  const certs = tls as unknown as {
    getCACertificates(kind: 'default'): string[];
    setDefaultCACertificates(certs: string[]): void;
  };
  certs.setDefaultCACertificates([...certs.getCACertificates('default'), outsideCert]);
  hostsFile = path.join(os.tmpdir(), `egress-hosts-${suffix}`);
  const [a, b] = outside.addresses;
  fs.writeFileSync(hostsFile, `# the outside\n${a} api.outside.test\n${b} other.outside.test\n`);
  t = await startTestCore({ args: ['--egress-hosts', hostsFile] });
  t.core.onEgress((c) => connections.push(c));
  void fetch(`${t.url}/v1/events`, { headers: { authorization: `Bearer ${t.token}` }, signal: events$.signal })
    .then(async (res) => {
      for await (const chunk of res.body!) events.push(Buffer.from(chunk).toString('utf8'));
    })
    .catch(() => undefined);
  for (const body of [
    { name: openai, value: VALUE, hosts: ['api.outside.test'] },
    { name: maps, value: KEY, hosts: ['*.outside.test'], header: 'X-Api-Key' },
  ]) {
    const res = await t.api('POST', '/v1/secrets', body);
    assert.equal(res.status, 201, await res.clone().text());
  }
  const created = await t.api('POST', P, { name: 'agent', secrets: [openai] });
  assert.equal(created.status, 201, await created.clone().text());
  await put('agent', '/tmp/client', fs.readFileSync(egressClientBinary()), '0755');
});

after(async () => {
  events$.abort();
  for (const box of ['agent', 'listed', 'copy']) await t?.api('DELETE', `${P}/${box}`);
  await t?.close();
  outside?.close();
  if (hostsFile) fs.rmSync(hostsFile, { force: true });
});

test('secrets: write-only in the API, bad input a 4xx that changes nothing', { skip }, async () => {
  const list = (await (await t.api('GET', '/v1/secrets')).json()) as { items: Secret[] };
  const mine = list.items.find((s) => s.name === openai)!;
  assert.deepEqual(
    { ...mine, created_at: '' },
    {
      ...{ name: openai, hosts: ['api.outside.test'], header: null, env: OPENAI, created_at: '' },
    },
  );
  assert.doesNotMatch(JSON.stringify(list), new RegExp(VALUE));
  for (const bad of [
    { name: 'x', value: 'v' },
    { name: 'Bad_Name', value: 'v', hosts: ['a.test'] },
    { name: 'x', value: 'two\nlines', hosts: ['a.test'] },
    { name: 'x', value: 'v', hosts: ['https://a.test/'] },
    { name: 'x', value: 'v', hosts: ['a.test'], header: 'Bad Header:' },
  ])
    assert.equal((await t.api('POST', '/v1/secrets', bad)).status, 400, JSON.stringify(bad));
  const again = await t.api('POST', '/v1/secrets', { name: openai, value: 'other', hosts: ['a.test'] });
  assert.equal(again.status, 409);
  const unknown = await t.api('POST', P, { name: 'nope', secrets: ['no-such-secret'] });
  assert.equal(unknown.status, 404);
  assert.match(((await unknown.json()) as { detail: string }).detail, /secret "no-such-secret" not found/);
  assert.equal((await t.api('GET', `${P}/nope`)).status, 404);
  assert.equal((await t.api('DELETE', `/v1/secrets/${openai}`)).status, 409, 'held by a box');
  assert.equal((await t.api('DELETE', '/v1/secrets/no-such-secret')).status, 404);
  const dir = path.join(t.dataDir, 'secrets');
  assert.equal(fs.statSync(path.join(dir, 'secrets.db')).mode & 0o777, 0o600);
  assert.equal(fs.statSync(dir).mode & 0o777, 0o700);
});

test(
  'a secret arrives at its host over HTTP and HTTPS, header replaced or added, and nowhere else',
  { skip },
  async () => {
    const box = (await (await t.api('GET', `${P}/agent`)).json()) as Box;
    assert.deepEqual(box.secrets, [openai]);
    const env = (await sh('agent', 'env')).stdout;
    assert.match(env, new RegExp(`^${OPENAI}=boxdesk-secret-`, 'm'));
    assert.match(env, /^HTTPS_PROXY=http:\/\/10\.\d+\.\d+\.1:7479$/m);
    assert.doesNotMatch(env, new RegExp(VALUE));
    assert.match(
      env,
      /^NO_PROXY=localhost,127\.0\.0\.1,::1,10\.\d+\.\d+\.0\/24,.*\bagent\b/m,
      "the project's boxes go direct",
    );

    const plain = await echo(
      'agent',
      `"http://api.outside.test:8080/v1?key=$${OPENAI}" "Authorization=Bearer $${OPENAI}"`,
    );
    assert.equal(plain.headers.authorization, `Bearer ${VALUE}`);
    assert.equal(plain.url, `/v1?key=${VALUE}`);
    // HTTPS is terminated with the installation's CA, which the client trusts through SSL_CERT_FILE.
    const secure = await echo('agent', 'https://api.outside.test/v1/models');
    assert.equal(secure.headers.authorization, `Bearer ${VALUE}`, 'added where absent');
    assert.equal(secure.headers['x-api-key'], undefined, 'a secret the box was not given');
    const other = await echo('agent', `http://other.outside.test:8080/ "Authorization=Bearer $${OPENAI}"`);
    assert.match(other.headers.authorization!, /^Bearer boxdesk-secret-/, 'another host gets the placeholder');
    // Another host's HTTPS is a plain tunnel: the client meets that host's own certificate.
    await put('agent', '/tmp/outside.pem', outsideCert);
    const tunnel = await sh(
      'agent',
      `SSL_CERT_FILE=/tmp/outside.pem /tmp/client https://other.outside.test/ "Authorization=Bearer $${OPENAI}"`,
    );
    assert.match((JSON.parse(tunnel.stdout) as Echo).headers.authorization!, /^Bearer boxdesk-secret-/, tunnel.stdout);

    // The CA's key, made at the first HTTPS to a secret's host, is the core's alone.
    assert.equal(fs.statSync(path.join(t.dataDir, 'secrets', 'ca-key.pem')).mode & 0o777, 0o600);
    const got = connections.filter((c) => c.box_id === box.id);
    assert.ok(got.some((c) => c.host === 'api.outside.test' && c.port === 443 && c.allowed && c.bytes > 0));
  },
);

test(
  "the value is in no box's environment, files, logs or snapshot, no event, and nowhere in the data dir but the secrets' database",
  { skip },
  async () => {
    await sh('agent', `/tmp/client https://api.outside.test/ > /workspace/answer.json; echo logged $${OPENAI}`);
    assert.match(
      (await sh('agent', 'cat /workspace/answer.json')).stdout,
      new RegExp(VALUE),
      "what the host answered is the box's",
    );
    await sh('agent', 'rm /workspace/answer.json');
    const found = await sh(
      'agent',
      `grep -rl "${VALUE}" /etc /tmp /root /workspace /.boxdesk /proc/1/environ 2>/dev/null; env | grep -c "${VALUE}"`,
    );
    assert.equal(found.stdout.trim(), '0');
    assert.doesNotMatch(await (await t.api('GET', `${P}/agent/logs`)).text(), new RegExp(VALUE));
    const snap = await t.api('POST', `${P}/agent/snapshots`, { name: 'with-secret' });
    assert.equal(snap.status, 201, await snap.clone().text());
    const { id } = (await snap.json()) as { id: string };
    const copy = await t.api('POST', P, { name: 'copy', fork: id });
    assert.equal(copy.status, 201, await copy.clone().text());
    const inCopy = await sh(
      'copy',
      `grep -rl "${VALUE}" /etc /tmp /root /workspace 2>/dev/null; env | grep -c "${VALUE}"`,
    );
    assert.equal(inCopy.stdout.trim(), '0');
    assert.doesNotMatch(events.join(''), new RegExp(VALUE));
    assert.match(events.join(''), /box\.created/, 'the events stream was read');
    const leaks: string[] = [];
    const walk = (dir: string): void => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const file = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(file);
        else if (entry.isFile() && file !== path.join(t.dataDir, 'secrets', 'secrets.db'))
          if (fs.readFileSync(file).includes(VALUE)) leaks.push(file);
      }
    };
    walk(t.dataDir);
    assert.deepEqual(leaks, []);
  },
);

test(
  'an allow-list box uses the proxy for its listed hosts only; the proxy reaches nothing else for it',
  { skip },
  async () => {
    const created = await t.api('POST', P, {
      name: 'listed',
      network: { egress: 'allowlist', allow: ['api.outside.test'] },
    });
    assert.equal(created.status, 201, await created.clone().text());
    await put('listed', '/tmp/client', fs.readFileSync(egressClientBinary()), '0755');
    const ok = await echo('listed', 'http://api.outside.test:8080/');
    assert.equal(ok.headers.authorization, undefined, 'no secrets, none added');
    const refused = await sh('listed', '/tmp/client http://other.outside.test:8080/');
    assert.match(refused.stdout, /egress policy does not allow other\.outside\.test:8080/);
    const tunnel = await sh('listed', '/tmp/client https://other.outside.test/');
    assert.match(tunnel.stdout, /error: .*Forbidden/);
    const box = (await (await t.api('GET', `${P}/listed`)).json()) as Box;
    assert.ok(connections.some((c) => c.box_id === box.id && c.host === 'other.outside.test' && !c.allowed));
    // The box's egress log has both, under the names the box asked for.
    const log = (await (await t.api('GET', `${P}/listed/egress`)).json()) as {
      items: { host: string; port: number; allowed: boolean }[];
    };
    const seen = (host: string, allowed: boolean) => log.items.some((r) => r.host === host && r.allowed === allowed);
    assert.ok(seen('api.outside.test', true) && seen('other.outside.test', false), JSON.stringify(log.items));
    // *.domain: reached through the proxy by name; the packet filter opens no address for it.
    const wider = await t.api('PUT', `${P}/listed`, { network: { allow: ['*.outside.test:8080'] } });
    assert.equal(wider.status, 200, await wider.clone().text());
    assert.equal((await echo('listed', 'http://other.outside.test:8080/')).host, 'other.outside.test:8080');
    const raw = await sh('listed', `printf 'GET / HTTP/1.0\\r\\n\\r\\n' | nc -w 2 ${outside.addresses[1]} 8080 2>&1`);
    assert.match(raw.stdout, /No route to host/);
  },
);

test(
  'the CLI adds a secret from stdin (never argv), lists it without its value, gives it to a box and removes it',
  { skip },
  async () => {
    const box = (args: string[], input?: string) =>
      runBox(['--url', t.url, '--token', t.token, '-p', project, ...args], input === undefined ? {} : { input });
    const name = `cli-${suffix}`;
    const noValue = await box(['secret', 'add', name, '--host', 'api.outside.test']);
    assert.equal(noValue.code, 2, noValue.stderr);
    assert.match(noValue.stderr, /--value-stdin/);
    const added = await box(
      ['secret', 'add', name, '--host', 'api.outside.test', '--header', 'X-Api-Key', '--value-stdin'],
      'cli-VALUE\n',
    );
    assert.equal(added.code, 0, added.stderr);
    assert.match(added.stdout, new RegExp(`CLI_${suffix.toUpperCase()}`));
    const ls = await box(['secret', 'ls']);
    assert.match(ls.stdout, new RegExp(`${name} +api\\.outside\\.test +X-Api-Key`));
    assert.doesNotMatch(ls.stdout + added.stdout, /cli-VALUE/);
    const given = await box(['update', 'listed', '--secret', name]);
    assert.equal(given.code, 0, given.stderr);
    assert.match(given.stdout, new RegExp(`secrets: +${name}`));
    const sent = await echo('listed', 'http://api.outside.test:8080/');
    assert.equal(sent.headers['x-api-key'], 'cli-VALUE');
    const held = await box(['secret', 'rm', name]);
    assert.equal(held.code, 1);
    assert.match(held.stderr, /is given to .*listed/);
    assert.equal((await box(['update', 'listed', '--no-secrets'])).code, 0);
    assert.equal((await box(['secret', 'rm', name])).code, 0);
  },
);
