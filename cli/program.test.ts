import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, it } from 'node:test';
import { ApiError } from '../shared/errors';
import { captureStream as capture } from '../test-support/cli-runner';
import { tagFilter } from './commands/boxes';
import { exitStatus } from './commands/exec';
import type { Io } from './context';
import { COMMANDS, main } from './main';
import { UsageError, applyEdits, collect, keyValues, wholeNumber } from './options';
import { parseFormat, table } from './output';
import type { CommandModule } from './program';

interface Seen {
  command: string;
  args: string[];
  opts: Record<string, unknown>;
  project: string;
  format: string;
  url: string;
}

/** Commands registered through the same module API as the real areas, recording what the parser hands them. */
function probes(seen: Seen[]): CommandModule {
  return {
    name: 'probes',
    register: (program, cli) => {
      const record =
        (command: string) =>
        async (ctx: { project: string; format: string; connection: { url: string } }, args: string[], opts: object) => {
          seen.push({
            command,
            args,
            opts: { ...opts },
            project: ctx.project,
            format: ctx.format,
            url: ctx.connection.url,
          });
          return 3;
        };
      const probe = program
        .command('probe')
        .argument('[ARGS...]')
        .option('-e, --env <K=V>', 'repeatable', collect)
        .option('--cpus <N>', 'a number', wholeNumber('--cpus', 1))
        .option('-t, --tty', 'a switch');
      cli.action(probe, record('probe'));
      const remote = program
        .command('remote')
        .argument('<NAME>')
        .argument('[CMD...]')
        .option('-t, --tty', 'a switch')
        .option('--cpus <N>', 'a number', wholeNumber('--cpus', 1))
        .passThroughOptions();
      cli.action(remote, record('remote'), { passThroughAfter: 1 });
      cli.action(program.command('grp').command('sub').argument('<X>'), record('grp sub'));
      cli.action(program.command('fail'), async () => {
        throw new ApiError('invalid_body', 'body.name must match ^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$', {
          errors: [
            { path: 'body.name', message: 'must match ^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$' },
            { path: 'body.config.ram_mb', message: 'must be >= 1' },
          ],
          hint: 'GET /v1/bases lists them',
        });
      });
      cli.action(program.command('conflict'), async () => {
        throw new ApiError('not_found', 'base "x" not found; GET /v1/bases lists them');
      });
    },
  };
}

async function run(argv: string[], env: NodeJS.ProcessEnv = {}) {
  const seen: Seen[] = [];
  const stdout = capture();
  const stderr = capture();
  const io: Io = {
    stdout,
    stderr,
    platform: { env, platform: 'linux', homedir: '/nonexistent', readFile: () => undefined },
    fetch: (url, init) => fetch(url, init as RequestInit),
  };
  const code = await main(argv, io, [...COMMANDS, probes(seen)]);
  return { code, stdout: stdout.text(), stderr: stderr.text(), seen: seen[0] };
}

describe('the parser', () => {
  it('reads long, short, inline and repeated options around arguments; the action’s number is the exit status', async () => {
    const r = await run([
      'probe',
      'b1',
      '--cpus',
      '2',
      '-o',
      'json',
      '--env=A=1',
      '-e',
      'B=2',
      '-t',
      '--url=http://x:1',
      'b2',
    ]);
    assert.equal(r.code, 3, r.stderr);
    assert.deepEqual(r.seen!.args, ['b1', 'b2']);
    assert.deepEqual([r.seen!.opts.cpus, r.seen!.opts.env, r.seen!.opts.tty], [2, ['A=1', 'B=2'], true]);
    assert.deepEqual([r.seen!.format, r.seen!.url], ['json', 'http://x:1']);
  });

  it('takes global options before the command, between a group and its command, and after it', async () => {
    const before = await run(['--url', 'http://x:2', '-o', 'yaml', '-p', 'proj', 'grp', 'sub', 'y']);
    assert.deepEqual(
      [before.seen!.command, before.seen!.args, before.seen!.url, before.seen!.format, before.seen!.project],
      ['grp sub', ['y'], 'http://x:2', 'yaml', 'proj'],
    );
    const between = await run(['grp', '--project=mid', 'sub', 'y']);
    assert.equal(between.seen!.project, 'mid');
    const after = await run(['grp', 'sub', 'y', '--project', 'late', '--output=json']);
    assert.deepEqual([after.seen!.project, after.seen!.format], ['late', 'json']);
  });

  it('the project comes from -p, else $BOX_PROJECT, else "default", and must be a DNS label', async () => {
    assert.equal((await run(['probe'])).seen!.project, 'default');
    assert.equal((await run(['probe'], { BOX_PROJECT: 'envp' })).seen!.project, 'envp');
    const bad = await run(['-p', 'Not_A_Label', 'probe']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /project "Not_A_Label" is not a DNS label/);
  });

  it('passes everything after -- through untouched', async () => {
    const r = await run(['probe', 'b1', '-t', '--', 'sh', '-c', 'echo --cpus', '-o']);
    assert.deepEqual(r.seen!.args, ['b1', 'sh', '-c', 'echo --cpus', '-o']);
    assert.equal(r.seen!.opts.tty, true);
    assert.equal(r.seen!.format, 'table');
  });

  it('with passThroughAfter, the command after NAME keeps its own flags; options between NAME and it are ours', async () => {
    const r = await run(['remote', '-t', 'b1', 'ls', '-la', '--cpus']);
    assert.deepEqual(
      [r.seen!.args, r.seen!.opts.tty, r.seen!.opts.cpus],
      [['b1', 'ls', '-la', '--cpus'], true, undefined],
    );
    const between = await run(['remote', 'b1', '--cpus', '2', '-o', 'json', '--', 'ls', '-x']);
    assert.deepEqual(
      [between.seen!.args, between.seen!.opts.cpus, between.seen!.format],
      [['b1', 'ls', '-x'], 2, 'json'],
    );
    const unknown = await run(['remote', 'b1', '--nope', 'ls']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /unknown option --nope/);
  });

  it('refuses unknown options, missing values, values on switches and bad numbers with exit 2', async () => {
    const cases: [string[], RegExp][] = [
      [['probe', '--nope'], /^box: unknown option --nope\n/],
      [['probe', '--cpus'], /^box: --cpus needs a value \(N\)\n/],
      [['probe', '--tty=1'], /^box: --tty takes no value\n/],
      [['probe', '--cpus', 'two'], /^box: --cpus must be a whole number of at least 1, got "two"\n/],
      [['probe', '-o', 'xml'], /^box: --output must be one of table, json, yaml, got "xml"\n/],
      [['stpo'], /^box: unknown command "stpo"; did you mean stop\?\n/],
      [['grp', 'nope'], /^box: unknown command "grp nope"; try: grp sub\n/],
    ];
    for (const [argv, message] of cases) {
      const r = await run(argv);
      assert.equal(r.code, 2, argv.join(' '));
      assert.match(r.stderr, message);
      assert.match(r.stderr, /Run "box --help" for usage\.\n$/);
      assert.equal(r.seen, undefined, 'the action did not run');
    }
  });

  it("an API error exits 1 in the CLI's words: each field as its argument or flag, routes as commands", async () => {
    const r = await run(['fail']);
    assert.equal(r.code, 1);
    assert.equal(
      r.stderr,
      'NAME must be 1 to 63 lower-case letters, digits and hyphens, starting and ending with a letter or digit (like web-1)\n' +
        '--ram-mb must be at least 1\nhint: `box base ls` lists them\n',
    );
    const other = await run(['conflict']);
    assert.deepEqual([other.code, other.stderr], [1, 'base "x" not found; `box base ls` lists them\n']);
  });

  it('--version and -V print the version, exit 0', async () => {
    const { version } = JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    for (const flag of ['--version', '-V']) {
      const r = await run([flag]);
      assert.deepEqual([r.code, r.stdout], [0, `box ${version}\n`]);
    }
  });

  it('--help shows commands and the URL/token precedence; no command shows it too, exiting 2', async () => {
    const help = await run(['--help']);
    assert.equal(help.code, 0);
    for (const text of [
      'create',
      'exec',
      'token',
      'serve',
      'completion',
      '--url',
      'SERVICE_PROFILE_<NAME>_URL',
      'SERVICE_URL',
      'SERVICE_API_URL',
      'SERVICE_PROFILE_<NAME>_TOKEN',
      'SERVICE_TOKEN',
      "the local core's token file",
    ]) {
      assert.ok(help.stdout.includes(text), `help mentions ${text}`);
    }
    assert.ok(
      help.stdout.indexOf('SERVICE_PROFILE_<NAME>_URL') < help.stdout.indexOf('SERVICE_URL\n'),
      'the profile comes before SERVICE_URL',
    );
    const none = await run([]);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /Usage: box/);
    const create = await run(['create', '--help']);
    assert.equal(create.code, 0);
    assert.match(create.stdout, /--wait/);
    assert.match(create.stdout, /Global Options:[\s\S]*--url/);
  });
});

describe('the real commands, before any request', () => {
  it('report usage errors with exit 2', async () => {
    const cases: [string[], RegExp][] = [
      [['create'], /missing NAME/],
      [['get', 'a', 'b'], /unexpected argument "b"/],
      [['ls', '--limit', 'many'], /--limit must be a whole number/],
      [['exec', 'b1'], /missing the command to run/],
      [['exec', 'b1', '-t', '-e', 'A=1', '--', 'sh'], /not available with -t/],
      [['token', 'bogus'], /try: token ls, token create, token rm/],
      [['token', 'create', 'ci'], /give at least one --scope/],
      [['create', 'x', '--timeout', '5'], /--timeout applies only with --wait/],
      [['completion', 'tcsh'], /use bash, zsh or fish/],
    ];
    for (const [argv, message] of cases) {
      const r = await run(argv);
      assert.equal(r.code, 2, `${argv.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, message);
    }
  });

  it('read global options after the command (here, an unreachable --url: exit 1)', async () => {
    const r = await run(['get', 'x', '-o', 'json', '--url', 'http://127.0.0.1:9']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /cannot reach the Boxdesk core at http:\/\/127\.0\.0\.1:9/);
    assert.equal(r.stdout, '');
  });
});

describe('value helpers', () => {
  it('wholeNumber accepts whole numbers only', () => {
    assert.equal(wholeNumber('--cpus', 1)('4'), 4);
    for (const bad of ['0', '-1', '1.5', 'two', '']) assert.throws(() => wholeNumber('--cpus', 1)(bad), UsageError);
  });

  it('keyValues splits on the first = and K- removes only when allowed', () => {
    assert.deepEqual(keyValues(['A=1', 'URL=a=b', 'E='], 'env'), { A: '1', URL: 'a=b', E: '' });
    assert.deepEqual(keyValues(['A-'], 'env', true), { A: null });
    assert.throws(() => keyValues(['A-'], 'env'), UsageError);
    assert.throws(() => keyValues(['=1'], 'env'), UsageError);
    assert.equal(keyValues([], 'env'), undefined);
  });

  it('applyEdits merges into the current map', () => {
    assert.deepEqual(applyEdits({ A: '1', B: '2' }, { B: null, C: '3' }), { A: '1', C: '3' });
  });

  it('tagFilter turns k=v into the API k:v', () => {
    assert.deepEqual(tagFilter(['team:web', 'env=prod']), ['team:web', 'env:prod']);
    assert.throws(() => tagFilter(['nocolon']), UsageError);
  });

  it('exitStatus keeps 0-255 and maps anything else to 1', () => {
    assert.deepEqual([0, 7, 255, 256, -1, null].map(exitStatus), [0, 7, 255, 1, 1, 1]);
  });

  it('parseFormat and table', () => {
    assert.equal(parseFormat(undefined), 'table');
    assert.throws(() => parseFormat('xml'), UsageError);
    assert.equal(
      table(
        [{ a: 'x', b: null }],
        [
          { header: 'LONG', get: (r) => r.a },
          { header: 'B', get: (r) => r.b },
        ],
      ),
      'LONG  B\nx     -\n',
    );
  });
});
