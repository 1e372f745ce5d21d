import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';
import { servedOpenApi } from '../../../test-support/openapi-document';
import { deleteBoxes, startTestCore, type TestCore } from '../../../test-support/test-core';
import { OPERATION_IDS } from './operation-ids';

// Proof that a tool that never saw Boxdesk's source can use the API: a typed client generated
// from the served document alone (openapi-typescript), a program written against it alone
// (openapi-fetch), type-checked by tsc, run against a real core on the real engine.

const run = promisify(execFile);
const repoRoot = path.resolve(import.meta.dirname, '../../..');
const project = 'openapi-client';
const boxesPath = `/v1/projects/${project}/boxes`;

/** The program: a box's whole life through the generated client, printing what it saw as JSON. */
const DRIVE = `import createClient from 'openapi-fetch';
import type { paths } from './schema.js';

const client = createClient<paths>({
  baseUrl: process.env.BOXDESK_URL,
  headers: { authorization: \`Bearer \${process.env.BOXDESK_TOKEN}\` },
});
const project = process.env.BOXDESK_PROJECT ?? 'default';
const life = { project, name: 'life' };
const note = { path: '/tmp/note.txt' };

/** The answer's data; a refusal stops the program, naming the call, its status and problem. */
function ok<T>(call: string, answer: { data?: T; error?: unknown; response: Response }): T {
  if (answer.error !== undefined || !answer.response.ok)
    throw new Error(\`\${call}: \${answer.response.status} \${JSON.stringify(answer.error)}\`);
  return answer.data as T;
}

const created = ok('createBox', await client.POST('/v1/projects/{project}/boxes', {
  params: { path: { project } },
  body: { name: 'life', tags: { made_by: 'openapi-fetch' } },
}));
const ran = ok('execCommand', await client.POST('/v1/projects/{project}/boxes/{name}/exec', {
  params: { path: life },
  body: { command: ['sh', '-c', 'echo "hello from $(hostname)"; echo oops >&2; exit 3'] },
}));
// The route answers 200 with the result, or 202 with a job (background: true): the types say both.
if (!('exit_code' in ran)) throw new Error('execCommand answered a job, not a result');
const written = ok('writeFile', await client.PUT('/v1/projects/{project}/boxes/{name}/files', {
  params: { path: life, query: { ...note, mode: '0600' } },
  body: 'written by a generated client\\n',
  bodySerializer: (bytes: string) => bytes,
  headers: { 'content-type': 'application/octet-stream' },
}));
const read = ok('readFile', await client.GET('/v1/projects/{project}/boxes/{name}/files', {
  params: { path: life, query: note },
  parseAs: 'text',
}));
const snapshot = ok('createSnapshot', await client.POST('/v1/projects/{project}/boxes/{name}/snapshots', {
  params: { path: life },
  body: { name: 'with-note' },
}));
const fork = ok('createBox (fork)', await client.POST('/v1/projects/{project}/boxes', {
  params: { path: { project } },
  body: { name: 'life-fork', fork: snapshot.id },
}));
const readInFork = ok('readFile (fork)', await client.GET('/v1/projects/{project}/boxes/{name}/files', {
  params: { path: { project, name: 'life-fork' }, query: note },
  parseAs: 'text',
}));
const deleted: number[] = [];
for (const name of ['life-fork', 'life']) {
  const answer = await client.DELETE('/v1/projects/{project}/boxes/{name}', { params: { path: { project, name } } });
  deleted.push(answer.response.status);
}
const snapshotDeleted = await client.DELETE('/v1/projects/{project}/snapshots/{id}', {
  params: { path: { project, id: snapshot.id } },
});
const left = ok('listBoxes', await client.GET('/v1/projects/{project}/boxes', { params: { path: { project } } }));
console.log(JSON.stringify({
  created: { status: created.status, tags: created.tags },
  ran: { exit_code: ran.exit_code, stdout: ran.stdout, stderr: ran.stderr },
  written: { size: written.size, mode: written.mode },
  read,
  fork: { status: fork.status, snapshot: fork.origin },
  snapshot: snapshot.id,
  readInFork,
  deleted,
  snapshotDeleted: snapshotDeleted.response.status,
  left: left.items.length,
}));
`;

const TSCONFIG = {
  compilerOptions: {
    strict: true,
    target: 'ES2022',
    module: 'nodenext',
    moduleResolution: 'nodenext',
    lib: ['ES2022', 'DOM'],
    types: ['node'],
    skipLibCheck: true,
    outDir: 'out',
  },
  files: ['schema.d.ts', 'drive.ts'],
};

let t: TestCore;
let dir: string;
before(async () => {
  t = await startTestCore();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'boxdesk-openapi-client-'));
  // The generated client resolves openapi-fetch (and tsc) the way a project of its own would.
  fs.symlinkSync(fs.realpathSync(path.join(repoRoot, 'node_modules')), path.join(dir, 'node_modules'));
});
after(async () => {
  await deleteBoxes(t, boxesPath);
  await t.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('a client generated from /v1/openapi.json type-checks and drives a box from create to delete', async () => {
  const schema = astToString(await openapiTS((await servedOpenApi(t)) as never));
  for (const id of Object.values(OPERATION_IDS))
    assert.match(schema, new RegExp(`^ {4}${id}: \\{$`, 'm'), `the generated operations name ${id}`);
  fs.writeFileSync(path.join(dir, 'schema.d.ts'), schema);
  fs.writeFileSync(path.join(dir, 'drive.ts'), DRIVE);
  fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify(TSCONFIG));
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ type: 'module', private: true }));

  const tsc = path.join(dir, 'node_modules', 'typescript', 'bin', 'tsc');
  await run(process.execPath, [tsc, '-p', dir], { cwd: dir }).catch((err: { stdout?: string }) => {
    assert.fail(`tsc refused the generated client or the program written against it:\n${err.stdout}`);
  });

  const env = { ...process.env, BOXDESK_URL: t.url, BOXDESK_TOKEN: t.token, BOXDESK_PROJECT: project };
  const { stdout } = await run(process.execPath, [path.join(dir, 'out', 'drive.js')], { cwd: dir, env }).catch(
    (err: { stderr?: string }) => assert.fail(`the generated client's program failed:\n${err.stderr}`),
  );
  const seen = JSON.parse(stdout) as Record<string, unknown>;
  const snapshot = seen.snapshot as string;
  assert.match(snapshot, /^snap_/);
  assert.deepEqual(seen, {
    created: { status: 'running', tags: { made_by: 'openapi-fetch' } },
    ran: { exit_code: 3, stdout: 'hello from life\n', stderr: 'oops\n' },
    written: { size: 30, mode: '0600' },
    read: 'written by a generated client\n',
    fork: { status: 'running', snapshot },
    snapshot,
    readInFork: 'written by a generated client\n',
    deleted: [204, 204],
    snapshotDeleted: 204,
    left: 0,
  });
});
