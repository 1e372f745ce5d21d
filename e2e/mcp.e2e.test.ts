import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { BOX_BIN, cliEnv } from '../test-support/cli-runner';
import { startCoreProcess, type CoreProcess } from '../test-support/core-process';
import { teardown } from '../test-support/teardown';

const P = 'mcp';
const OTHER = 'mcp-other';
let core: CoreProcess;
const tokens: Record<'read' | 'other', string> = { read: '', other: '' };
const clients: Client[] = [];

async function makeToken(body: Record<string, unknown>): Promise<string> {
  const res = await fetch(`${core.url}/v1/tokens`, {
    method: 'POST',
    headers: { authorization: `Bearer ${core.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  assert.equal(res.status, 201, await res.clone().text());
  return ((await res.json()) as { token: string }).token;
}

before(async () => {
  core = await startCoreProcess();
  tokens.read = await makeToken({ name: 'mcp-read', scopes: ['read'] });
  tokens.other = await makeToken({ name: 'mcp-other', scopes: ['read', 'write', 'exec'], project: OTHER });
});
after(async () => {
  for (const c of clients) await c.close().catch(() => undefined);
  await teardown(core, { projects: [P, OTHER] });
});

type Transport = 'stdio' | 'http';

/** An MCP client of the SDK: spawning the real `box mcp`, or on the core's /v1/mcp. */
async function connect(transport: Transport, token = core.token): Promise<Client> {
  const client = new Client({ name: 'boxdesk-test', version: '1.0.0' });
  await client.connect(
    transport === 'stdio'
      ? new StdioClientTransport({
          command: process.execPath,
          args: [BOX_BIN, '--url', core.url, '--token', token, '-p', P, 'mcp'],
          env: cliEnv() as Record<string, string>,
          stderr: 'pipe',
        })
      : new StreamableHTTPClientTransport(new URL(`${core.url}/v1/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${token}` } },
        }),
  );
  clients.push(client);
  return client;
}

interface Called {
  isError: boolean;
  text: string;
  data: Record<string, unknown>;
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<Called> {
  const r = (await client.callTool({ name, arguments: { project: P, ...args } })) as {
    isError?: boolean;
    content: { type: string; text: string }[];
    structuredContent?: Record<string, unknown>;
  };
  return { isError: r.isError === true, text: r.content.map((c) => c.text).join(''), data: r.structuredContent ?? {} };
}

/** The call succeeded; its structured content. */
async function ok(client: Client, name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const r = await call(client, name, args);
  assert.equal(r.isError, false, `${name} failed: ${r.text}`);
  assert.ok(r.text.length > 0, `${name} answers text too`);
  return r.data;
}

const SPEC_TOOLS = [
  'list_boxes',
  'create_box',
  'delete_box',
  'stop_box',
  'resume_box',
  'exec',
  'job_output',
  'kill_job',
  'read_file',
  'write_file',
  'list_files',
  'delete_file',
  'snapshot_box',
  'restore_box',
  'fork_box',
  'publish_box',
  'get_logs',
  'get_egress',
  'create_base',
];

/** Every tool, in the order an agent would use them, on a box of its own. */
async function driveEveryTool(c: Client, box: string): Promise<void> {
  const created = await ok(c, 'create_box', { name: box, environment: { WHO: 'agent' }, network: { egress: 'none' } });
  assert.equal(created.status, 'running');
  assert.deepEqual(created.network, { egress: 'none', allow: [], host: false });
  const listed = (await ok(c, 'list_boxes', {})) as { items: { name: string }[] };
  assert.ok(listed.items.some((b) => b.name === box));

  const shell = await ok(c, 'exec', { box, command: 'echo "$WHO" out; echo err >&2; exit 3' });
  assert.deepEqual([shell.exit_code, shell.stdout, shell.stderr, shell.truncated], [3, 'agent out\n', 'err\n', false]);
  assert.equal((await ok(c, 'exec', { box, command: ['pwd'], cwd: '/tmp' })).stdout, '/tmp\n');

  const job = await ok(c, 'exec', { box, command: 'echo started; sleep 3001', background: true });
  assert.equal(job.status, 'running');
  let out: Record<string, unknown> = {};
  for (let i = 0; i < 100 && out.output !== 'started\n'; i++) out = await ok(c, 'job_output', { box, job: job.id });
  assert.equal(out.output, 'started\n');
  assert.equal(out.next_from, 8);
  assert.equal((out.job as { status: string }).status, 'running');
  assert.equal((await ok(c, 'kill_job', { box, job: job.id })).status, 'killed');

  await ok(c, 'write_file', { box, path: '/work/notes.txt', content: 'hello\n' });
  await ok(c, 'write_file', {
    box,
    path: '/work/bin.dat',
    content: Buffer.from([0, 255, 1]).toString('base64'),
    encoding: 'base64',
  });
  assert.deepEqual(await ok(c, 'read_file', { box, path: '/work/notes.txt' }), {
    path: '/work/notes.txt',
    size: 6,
    encoding: 'utf8',
    content: 'hello\n',
  });
  assert.equal((await ok(c, 'read_file', { box, path: '/work/bin.dat' })).content, 'AP8B');
  const files = (await ok(c, 'list_files', { box, path: '/work' })) as { items: { path: string }[] };
  assert.deepEqual(files.items.map((f) => f.path).sort(), ['/work/bin.dat', '/work/notes.txt']);
  await ok(c, 'delete_file', { box, path: '/work/bin.dat' });

  const snap = await ok(c, 'snapshot_box', { box, name: 'clean' });
  await ok(c, 'write_file', { box, path: '/work/notes.txt', content: 'changed\n' });
  await ok(c, 'restore_box', { box, snapshot_id: snap.id });
  assert.equal((await ok(c, 'read_file', { box, path: '/work/notes.txt' })).content, 'hello\n');
  const fork = await ok(c, 'fork_box', { box: snap.id, name: `${box}-fork` });
  assert.equal(fork.name, `${box}-fork`);

  const published = await ok(c, 'publish_box', { box, port: 8080, auth: 'public' });
  assert.match(String(published.url), /^http:\/\//);
  assert.equal(typeof (await ok(c, 'get_logs', { box, tail: 10 })).logs, 'string');
  assert.ok(Array.isArray((await ok(c, 'get_egress', { box })).items));
  assert.equal((await ok(c, 'stop_box', { box })).status, 'stopped');
  assert.equal((await ok(c, 'resume_box', { box })).status, 'running');
  assert.deepEqual(await ok(c, 'delete_box', { box: `${box}-fork` }), { deleted: `${box}-fork` });
}

for (const transport of ['stdio', 'http'] as const) {
  describe(`MCP over ${transport}`, () => {
    test('lists the tools SPEC names, with the REST schemas as input schemas', async () => {
      const c = await connect(transport);
      const { tools } = await c.listTools();
      assert.deepEqual(tools.map((t) => t.name).sort(), [...SPEC_TOOLS].sort());
      const exec = tools.find((t) => t.name === 'exec')!;
      assert.deepEqual(exec.inputSchema.required, ['box', 'command']);
      const props = exec.inputSchema.properties as Record<string, { maxItems?: number; anyOf?: unknown[] }>;
      assert.equal((props.command!.anyOf![1] as { maxItems: number }).maxItems, 4096, "the route's argv rules");
    });

    test('drives every tool', async () => {
      await driveEveryTool(await connect(transport), `agent-${transport}`);
    });

    test('a failure is an isError result with the problem detail', async () => {
      const c = await connect(transport);
      const missing = await call(c, 'exec', { box: 'nope', command: 'true' });
      assert.equal(missing.isError, true);
      assert.match(missing.text, /box "nope"/);
      const invalid = await call(c, 'create_box', { name: 'Not A Label' });
      assert.equal(invalid.isError, true);
      assert.match(invalid.text, /\/name/);
    });

    test('a read token lists but does not create', async () => {
      const c = await connect(transport, tokens.read);
      await ok(c, 'list_boxes', {});
      const refused = await call(c, 'create_box', { name: 'from-read' });
      assert.equal(refused.isError, true);
      assert.match(refused.text, /scope/i);
      assert.equal((await call(c, 'exec', { box: `agent-${transport}`, command: 'true' })).isError, true);
    });

    test("a project's token reaches no other project", async () => {
      const c = await connect(transport, tokens.other);
      const refused = await call(c, 'list_boxes', {});
      assert.equal(refused.isError, true);
      assert.match(refused.text, /project/);
      await ok(c, 'list_boxes', { project: OTHER });
    });
  });
}

test('create_base builds a base from a Dockerfile text and its files, and a failed build is an isError result', async () => {
  const c = await connect('http');
  const nonce = Date.now();
  const built = await ok(c, 'create_base', {
    name: 'agent-base',
    dockerfile: `FROM boxdesk/default\nCOPY note.txt /note.txt\nRUN cat /note.txt\n`,
    files: { 'note.txt': `from the agent ${nonce}\n` },
  });
  assert.equal((built.build as { status: string }).status, 'done');
  assert.match(String(built.log), new RegExp(`from the agent ${nonce}`));
  const failed = await call(c, 'create_base', {
    name: 'agent-broken',
    dockerfile: `FROM boxdesk/default\nRUN exit ${(nonce % 7) + 2}\n`,
  });
  assert.equal(failed.isError, true);
  assert.match(failed.text, /step 2\/2 RUN exit \d failed/);
  assert.equal(
    (
      await fetch(`${core.url}/v1/bases/agent-base`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${core.token}` },
      })
    ).status,
    204,
  );
});

test('/v1/mcp refuses what is not MCP as a problem document, like every /v1 route', async () => {
  const post = (headers: Record<string, string>, body: unknown) =>
    fetch(`${core.url}/v1/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${core.token}`, 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
  const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
  const both = { accept: 'application/json, text/event-stream' };
  const notAcceptable = await post({ accept: 'application/json' }, ping);
  assert.equal(notAcceptable.status, 406);
  assert.equal(notAcceptable.headers.get('content-type'), 'application/problem+json; charset=utf-8');
  assert.equal((await post(both, { jsonrpc: '2.0', id: 1, result: 'x', method: 'y' })).status, 400);
  assert.equal((await post({ ...both, 'mcp-protocol-version': '1999-01-01' }, ping)).status, 400);
  assert.equal((await post(both, ping)).status, 200);
  const get = await fetch(`${core.url}/v1/mcp`, { headers: { authorization: `Bearer ${core.token}` } });
  assert.equal(get.status, 405);
  assert.equal(get.headers.get('allow'), 'POST');
});
