import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { boxProcesses, untilNoProcess } from '../../../test-support/box-processes';
import { startTestCore, type TestCore } from '../../../test-support/test-core';

let t: TestCore;
const B = '/v1/projects/ex/boxes/runner';

before(async () => {
  t = await startTestCore();
  const res = await t.api('POST', '/v1/projects/ex/boxes', {
    name: 'runner',
    environment: { FROM_BOX: 'box', SHARED: 'box' },
  });
  assert.equal(res.status, 201);
});
after(async () => {
  await t.api('DELETE', B);
  await t.close();
});

interface Result {
  exit_code: number;
  stdout: string;
  stderr: string;
  truncated: boolean;
  timed_out: boolean;
  duration_ms: number;
}

async function run(body: Record<string, unknown>): Promise<Result> {
  const res = await t.api('POST', `${B}/exec`, body);
  assert.equal(res.status, 200, await res.clone().text());
  return (await res.json()) as Result;
}

const processes = () => boxProcesses(t.api, B);

test('stdout, stderr and the exit code come back separately', async () => {
  const r = await run({ command: ['sh', '-c', 'echo out; echo err >&2; exit 7'] });
  assert.equal(r.stdout, 'out\n');
  assert.equal(r.stderr, 'err\n');
  assert.equal(r.exit_code, 7);
  assert.equal(r.truncated, false);
  assert.equal(r.timed_out, false);
  assert.ok(Number.isInteger(r.duration_ms));
});

test("the box's environment is merged under the request's, and an update applies to the next exec", async () => {
  const r = await run({
    command: ['sh', '-c', 'echo $FROM_BOX $SHARED $ONLY_REQ'],
    env: { SHARED: 'req', ONLY_REQ: 'r' },
  });
  assert.equal(r.stdout, 'box req r\n');
  await t.api('PUT', B, { environment: { FROM_BOX: 'updated' } });
  const after = await run({ command: ['sh', '-c', 'echo $FROM_BOX-$SHARED'] });
  assert.equal(after.stdout, 'updated-\n');
});

test('stdin is written then closed; cwd is honoured', async () => {
  assert.equal((await run({ command: ['cat'], stdin: 'hello\nworld\n' })).stdout, 'hello\nworld\n');
  assert.equal((await run({ command: ['pwd'], cwd: '/tmp' })).stdout, '/tmp\n');
});

test('a missing binary is a non-zero exit code with the engine message, not a 500', async () => {
  const r = await run({ command: ['/no/such/binary'] });
  assert.notEqual(r.exit_code, 0);
  assert.match(r.stdout + r.stderr, /no such file|not found/i);
});

test('output past the cap per stream is dropped and flagged truncated', async () => {
  const r = await run({ command: ['sh', '-c', 'yes 0123456789 | head -c 11534336; echo small >&2'] });
  assert.equal(r.truncated, true);
  assert.equal(Buffer.byteLength(r.stdout), 10 * 1024 * 1024);
  assert.equal(r.stderr, 'small\n', 'the other stream is unaffected');
});

test('timeout_s kills the whole process tree', async () => {
  const r = await run({ command: ['sh', '-c', 'sleep 3001 & sleep 3002; echo never'], timeout_s: 1 });
  assert.equal(r.timed_out, true);
  assert.notEqual(r.exit_code, 0);
  assert.equal(r.stdout, '');
  const left = await processes();
  assert.ok(!/sleep 300[12]/.test(left), `left behind:\n${left}`);
});

test('with Accept: application/x-ndjson the output streams as lines, then the exit line', async () => {
  const res = await t.api(
    'POST',
    `${B}/exec`,
    { command: ['sh', '-c', 'echo one; sleep 0.2; echo two >&2; exit 4'] },
    { accept: 'application/x-ndjson' },
  );
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /application\/x-ndjson/);
  const lines = (await res.text())
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  assert.deepEqual(lines.slice(0, -1), [
    { type: 'stdout', data: 'one\n' },
    { type: 'stderr', data: 'two\n' },
  ]);
  const exit = lines.at(-1)!;
  assert.equal(exit.type, 'exit');
  assert.equal(exit.exit_code, 4);
});

test('bad exec bodies: a 400 problem naming the field, and the command never runs', async () => {
  // Each would leave a file behind if it ran.
  const leaves = ['sh', '-c', 'touch /tmp/ran-anyway'];
  for (const [body, path] of [
    [{ command: [] }, 'body.command'],
    [{ command: 'touch /tmp/ran-anyway' }, 'body.command'],
    [{ command: leaves, timeout_s: 0 }, 'body.timeout_s'],
    [{ command: leaves, cwd: 'relative' }, 'body.cwd'],
    [{ command: leaves, shell: true }, 'body.shell'],
  ] as const) {
    const res = await t.api('POST', `${B}/exec`, body);
    assert.equal(res.status, 400);
    assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
    const p = (await res.json()) as { code: string; detail: string; errors: { path: string; message: string }[] };
    assert.equal(p.code, 'invalid_body', JSON.stringify(p));
    const error = p.errors.find((e) => e.path === path);
    assert.ok(error?.message, JSON.stringify(p));
    assert.match(p.detail, new RegExp(path.replace('.', '\\.')), 'the detail says which field');
  }
  const check = await run({ command: ['sh', '-c', 'test -e /tmp/ran-anyway && echo ran || echo never-ran'] });
  assert.equal(check.stdout, 'never-ran\n');
});

test('a client that goes away takes its command with it', async () => {
  for (const accept of ['application/json', 'application/x-ndjson']) {
    const controller = new AbortController();
    const pending = fetch(`${t.url}${B}/exec`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.token}`, 'content-type': 'application/json', accept },
      body: JSON.stringify({ command: ['sh', '-c', 'sleep 8001 & sleep 8002'] }),
      signal: controller.signal,
    }).then((r) => r.text());
    const deadline = Date.now() + 10_000;
    while (!/sleep 8002/.test(await processes()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    controller.abort();
    await pending.catch(() => undefined);
    await untilNoProcess(t.api, B, /sleep 800[12]/);
  }
});
