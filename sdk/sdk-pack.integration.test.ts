import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { cliEnv } from '../test-support/cli-runner';
import { ROOT, startCoreProcess, type CoreProcess } from '../test-support/core-process';
import { teardown } from '../test-support/teardown';

// The package as a user gets it: `npm pack` of sdk/, installed into an empty project (its
// dependencies from the registry or npm's cache), type-checked there with Node's own module
// resolution, and a script in that project driving a box on a real core. Nothing of this repo
// is reachable from there but the tarball.

const SDK = path.join(ROOT, 'sdk');
const project = `sdk-${crypto.randomBytes(3).toString('hex')}`;
const consumer = fs.mkdtempSync(path.join(os.tmpdir(), 'boxdesk-sdk-consumer-'));
let core: CoreProcess | undefined;
let packed: string[] = [];

/** sdk/dist is newer than every source it was built from (dist/sdk/inputs.json), else it is built now. */
function ensureBuilt(): void {
  try {
    const built = fs.statSync(path.join(SDK, 'dist', 'index.js')).mtimeMs;
    const inputs = JSON.parse(fs.readFileSync(path.join(ROOT, 'dist', 'sdk', 'inputs.json'), 'utf8')) as string[];
    if (inputs.every((f) => fs.statSync(path.join(ROOT, f)).mtimeMs <= built)) return;
  } catch {
    // not built, or a source is gone
  }
  execFileSync(process.execPath, [path.join(ROOT, 'scripts', 'build-sdk.mjs')], { stdio: 'inherit' });
}

function npm(args: string[], cwd: string): string {
  const r = spawnSync('npm', args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, npm_config_update_notifier: 'false' },
  });
  assert.equal(r.status, 0, `npm ${args.join(' ')} failed:\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

before(async () => {
  ensureBuilt();
  const [pack] = JSON.parse(npm(['pack', '--json', '--pack-destination', consumer], SDK)) as {
    filename: string;
    files: { path: string }[];
  }[];
  packed = pack!.files.map((f) => f.path);
  fs.writeFileSync(
    path.join(consumer, 'package.json'),
    JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
  );
  npm(['install', path.join(consumer, pack!.filename), '--prefer-offline', '--no-audit', '--no-fund'], consumer);
  core = await startCoreProcess();
});

after(() => teardown(core, { projects: [project], paths: [consumer] }));

test('the tarball holds the built package, its licence and README, and no sources', () => {
  assert.ok(packed.includes('dist/index.js') && packed.includes('dist/index.d.ts'), packed.join('\n'));
  assert.ok(packed.includes('LICENSE') && packed.includes('README.md') && packed.includes('package.json'));
  assert.deepEqual(
    packed.filter((f) => !f.startsWith('dist/') && !['LICENSE', 'README.md', 'package.json'].includes(f)),
    [],
  );
  const installed = JSON.parse(fs.readFileSync(path.join(consumer, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
  };
  assert.ok(installed.dependencies['@boxdesk/sdk']);
});

test("the declarations type-check in the user's project (nodenext), and catch a wrong call", () => {
  fs.copyFileSync(path.join(SDK, 'test', 'typed.ts'), path.join(consumer, 'typed.ts'));
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const checked = spawnSync(
    process.execPath,
    [
      tsc,
      '--noEmit',
      '--strict',
      '--skipLibCheck',
      '--module',
      'nodenext',
      '--moduleResolution',
      'nodenext',
      '--target',
      'es2022',
      '--typeRoots',
      path.join(ROOT, 'node_modules', '@types'),
      '--types',
      'node',
      'typed.ts',
    ],
    { cwd: consumer, encoding: 'utf8' },
  );
  assert.equal(checked.status, 0, checked.stdout + checked.stderr);
});

test('a script in that project drives a box on a real core, found as the CLI finds it', () => {
  fs.copyFileSync(path.join(SDK, 'test', 'drive-a-box.mjs'), path.join(consumer, 'drive-a-box.mjs'));
  const r = spawnSync(process.execPath, ['drive-a-box.mjs', project], {
    cwd: consumer,
    encoding: 'utf8',
    env: cliEnv({ BOXDESK_DATA_DIR: core!.dataDir }),
    timeout: 120_000,
  });
  assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}\n${core!.output()}`);
  const out = JSON.parse(r.stdout) as Record<string, unknown>;
  assert.equal(out.created, 'running');
  assert.deepEqual(out.echo, {
    ...(out.echo as object),
    exit_code: 0,
    stdout: 'hi\n',
    stderr: '',
    truncated: false,
    timed_out: false,
  });
  assert.equal(out.shell, '42\n3');
  assert.equal(out.read, 'hello from the sdk\n');
  assert.deepEqual(out.bytes, [0, 1, 2, 255]);
  assert.deepEqual(out.listed, ['/workspace/notes/a.txt 19', '/workspace/notes/b.bin 4']);
  // stdout and stderr are two pipes: their order between each other is not kept.
  assert.deepEqual([...(out.streamed as string[])].sort(), ['exit', 'stderr', 'stdout']);
  assert.equal((out.streamed as string[]).at(-1), 'exit');
  assert.equal(out.snapshot, true);
  assert.deepEqual(out.fork, { status: 'running', file: 'hello from the sdk\n' });
  assert.equal(out.stopped, 'stopped');
  assert.equal(out.resumed, 'running');
  assert.equal(out.afterResume, 'hello from the sdk\n');
  assert.equal(out.got, 'sdk-one');
  assert.deepEqual(out.list, ['sdk-fork', 'sdk-one']);
  assert.equal(out.afterDelete, 'not_found');
  // Read through bd.events() while the script ran (the stream was opened before the create).
  const events = out.events as string[];
  assert.ok(events.includes('status:stopped') && events.includes('status:running'), events.join(' '));
  assert.equal(events.at(-1), 'box.deleted', events.join(' '));
});
