import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { Box, BoxList } from '../shared/schemas/box';
import type { Token, TokenCreated } from '../shared/schemas/system';
import { boxCli, ok, runBox, spawnBox } from '../test-support/cli-runner';
import { TEST_IMAGE, TEST_STORAGE_DRIVER, startCoreProcess, type CoreProcess } from '../test-support/core-process';
import { teardown } from '../test-support/teardown';

describe('box CLI against a real core', () => {
  let core: CoreProcess;
  const name = `cli-${crypto.randomBytes(3).toString('hex')}`;
  const cli = boxCli(() => core);

  before(async () => {
    core = await startCoreProcess();
  });

  after(() => teardown(core, { projects: ['default'] }));

  test('create, then ls as a table and as JSON, then get', async () => {
    const create = ok(
      await cli('create', name, '--env', 'GREETING=hello', '--tag', 'suite=cli', '--cpus', '1'),
      'create',
    );
    assert.match(create.stdout, new RegExp(`name:\\s+${name}`));
    assert.match(create.stdout, /status:\s+running/);

    const ls = ok(await cli('ls'), 'ls');
    const [header, ...rows] = ls.stdout.trim().split('\n');
    assert.match(header!, /^NAME\s+STATUS\s+BASE/);
    assert.ok(
      rows.some((r) => r.startsWith(`${name} `) && /\brunning\b/.test(r) && r.includes('suite=cli')),
      ls.stdout,
    );

    const list = JSON.parse(ok(await cli('ls', '-o', 'json', '--tag', 'suite:cli'), 'ls -o json').stdout) as BoxList;
    assert.deepEqual(
      list.items.map((b) => b.name),
      [name],
    );

    const got = JSON.parse(ok(await cli('get', name, '-o', 'json'), 'get').stdout) as Box;
    assert.equal(got.status, 'running');
    assert.deepEqual(got.environment, { GREETING: 'hello' });
    assert.match(ok(await cli('get', name, '-o', 'yaml'), 'get -o yaml').stdout, new RegExp(`^name: ${name}$`, 'm'));
  });

  test('exec streams stdout and stderr and exits with the command’s code', async () => {
    const run = await cli('exec', name, '--', 'sh', '-c', 'echo hi; echo oops >&2; exit 7');
    assert.equal(run.code, 7, run.stderr);
    assert.equal(run.stdout, 'hi\n');
    assert.equal(run.stderr, 'oops\n');
    const piped = await runBox(['--url', core.url, '--token', core.token, 'exec', '-i', name, 'tr', 'a-z', 'A-Z'], {
      input: 'shout\n',
    });
    assert.deepEqual([piped.code, piped.stdout], [0, 'SHOUT\n']);
  });

  test('update --env adds to the environment, and the next exec sees it; --port none clears the port', async () => {
    const updated = JSON.parse(
      ok(await cli('update', name, '--env', 'COLOR=blue', '--port', '8080', '-o', 'json'), 'update').stdout,
    ) as Box;
    assert.deepEqual(updated.environment, { GREETING: 'hello', COLOR: 'blue' });
    assert.equal(updated.port, 8080);
    const cleared = JSON.parse(
      ok(await cli('update', name, '--port', 'none', '-o', 'json'), 'port none').stdout,
    ) as Box;
    assert.equal(cleared.port ?? null, null);
    const run = ok(await cli('exec', name, '--', 'sh', '-c', 'echo "$GREETING $COLOR"'), 'exec after update');
    assert.equal(run.stdout, 'hello blue\n');
  });

  test('stop, resume and logs', async () => {
    assert.match(ok(await cli('stop', name), 'stop').stdout, new RegExp(`^${name} stopped`));
    const refused = await cli('exec', name, '--', 'true');
    assert.equal(refused.code, 125, 'exec on a stopped box fails: Boxdesk refused (125), not the command');
    assert.ok(refused.stderr.trim().length > 0);
    assert.match(ok(await cli('resume', name), 'resume').stdout, new RegExp(`^${name} running`));
    ok(await cli('logs', name, '--tail', '10'), 'logs');
  });

  test('pause freezes the box, exec wakes it; update --auto-stop and --ttl set its clocks and ls shows the next change', async () => {
    assert.match(ok(await cli('pause', name), 'pause').stdout, new RegExp(`^${name} paused`));
    assert.equal(ok(await cli('exec', name, '--', 'echo', 'awake'), 'exec wakes it').stdout, 'awake\n');
    const updated = JSON.parse(
      ok(await cli('update', name, '--auto-stop', '1h', '--ttl', '2d', '-o', 'json'), 'update lifecycle').stdout,
    ) as Box;
    assert.equal(updated.lifecycle?.auto_stop_s, 3600);
    assert.match(ok(await cli('ls'), 'ls').stdout, /stop in (59|60)m/);
    ok(await cli('update', name, '--auto-stop', 'none', '--ttl', 'none'), 'none clears the clocks');
  });

  test('stop --wait and resume --wait return once the box is there', async () => {
    const stopped = ok(await cli('stop', name, '--wait', '--timeout', '60'), 'stop --wait');
    assert.match(stopped.stdout, new RegExp(`^${name} stopped$`, 'm'));
    assert.equal((JSON.parse(ok(await cli('get', name, '-o', 'json'), 'get').stdout) as Box).status, 'stopped');
    const resumed = JSON.parse(ok(await cli('resume', '--wait', name, '-o', 'json'), 'resume --wait').stdout) as Box;
    assert.equal(resumed.status, 'running');
    assert.equal(ok(await cli('exec', name, '--', 'echo', 'back'), 'exec after resume --wait').stdout, 'back\n');
  });

  test('stats prints one sample (table or JSON); --stream prints one line a second until stopped', async () => {
    const table = ok(await cli('stats', name), 'stats').stdout;
    assert.match(table.split('\n')[0]!, /^BOX\s+CPU %\s+MEM\s+MEM %\s+NET RX\/TX\s+BLOCK R\/W\s+PIDS/);
    assert.match(table.split('\n')[1]!, new RegExp(`^${name}\\s+\\d+\\.\\d\\s+\\d`));
    const sample = JSON.parse(ok(await cli('stats', name, '-o', 'json'), 'stats -o json').stdout) as {
      memory_bytes: number;
      memory_limit_bytes: number;
      pids: number;
    };
    assert.ok(
      sample.memory_bytes > 0 && sample.memory_limit_bytes >= sample.memory_bytes && sample.pids >= 1,
      JSON.stringify(sample),
    );
    const child = spawnBox(['--url', core.url, '--token', core.token, 'stats', name, '--stream', '-o', 'json']);
    const lines: string[] = [];
    let buffered = '';
    await new Promise<void>((resolve, reject) => {
      child.on('error', reject);
      child.on('close', (code) => reject(new Error(`stats --stream ended early with ${code}`)));
      child.stdout!.on('data', (d: Buffer) => {
        buffered += d.toString();
        const parts = buffered.split('\n');
        buffered = parts.pop()!;
        lines.push(...parts.filter(Boolean));
        if (lines.length >= 2) resolve();
      });
    });
    child.removeAllListeners('close');
    child.kill('SIGINT');
    const [first, second] = lines.map((l) => JSON.parse(l) as { at: string });
    assert.ok(Date.parse(second!.at) > Date.parse(first!.at), 'two distinct samples');
    assert.equal((await cli('stats', 'no-such-box')).code, 1);
  });

  test('exec: options between NAME and the command are ours, the command’s own flags pass through', async () => {
    const run = ok(
      await cli(
        'exec',
        name,
        '-e',
        'X=from-cli',
        '--cwd',
        '/tmp',
        'sh',
        '-c',
        'echo "$X $(pwd) $*"',
        'sh',
        '-x',
        '--cpus',
      ),
      'exec with flags',
    );
    assert.equal(run.stdout, 'from-cli /tmp -x --cpus\n');
  });

  test('a usage error exits 2; a missing box exits 1 with the problem detail', async () => {
    const usage = await cli('create');
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /missing NAME/);
    assert.equal((await cli('ls', '--bogus')).code, 2);
    assert.equal((await cli('ls', '--limit', 'many')).code, 2);

    const missing = await cli('get', 'no-such-box');
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /no-such-box.*not found/);
    assert.equal(missing.stdout, '');

    // Refusals in the CLI's words: the argument at fault and what a valid one looks like, no JSON paths.
    const badName = await cli('create', 'Bad_Name!');
    assert.equal(badName.code, 1);
    assert.match(badName.stderr, /^NAME must be 1 to 63 lower-case letters, digits and hyphens/m);
    assert.doesNotMatch(badName.stderr, /body\.|\^\[a-z0-9\]/);

    // exec tells Boxdesk's failure (125, as docker exec) from the command's own codes.
    const noBox = await cli('exec', 'no-such-box', '--', 'true');
    assert.equal(noBox.code, 125, noBox.stderr);
    assert.match(noBox.stderr, /no-such-box.*not found/);
    // A command that cannot run: the engine's own 126 or 127 (Docker 20.10 answers 126 for both causes).
    const noCommand = await cli('exec', name, '--', 'no-such-command');
    assert.ok([126, 127].includes(noCommand.code ?? -1), `exit ${noCommand.code}: ${noCommand.stderr}`);
    assert.match(noCommand.stdout + noCommand.stderr, /no-such-command.*not found/);
  });

  test('the URL and token come from the profile before SERVICE_URL, and --url beats both', async () => {
    const env = {
      SERVICE_URL: 'http://127.0.0.1:9',
      SERVICE_PROFILE: 'e2e-local',
      SERVICE_PROFILE_E2E_LOCAL_URL: core.url,
      SERVICE_PROFILE_E2E_LOCAL_TOKEN: core.token,
    };
    const viaProfile = ok(await runBox(['get', name, '-o', 'json'], { env }), 'get via profile');
    assert.equal((JSON.parse(viaProfile.stdout) as Box).name, name);

    const badProfile = {
      SERVICE_PROFILE_BROKEN_URL: 'http://127.0.0.1:9',
      SERVICE_PROFILE_BROKEN_TOKEN: core.token,
    };
    const unreachable = await runBox(['--profile', 'broken', 'version'], { env: badProfile });
    assert.equal(unreachable.code, 1);
    assert.match(unreachable.stderr, /cannot reach the Boxdesk core at http:\/\/127\.0\.0\.1:9/);
    ok(
      await runBox(['--profile', 'broken', '--url', core.url, 'get', name], { env: badProfile }),
      '--url over the profile',
    );

    // No token given: the local core's token file in BOXDESK_DATA_DIR.
    ok(
      await runBox(['get', name], { env: { SERVICE_URL: core.url, BOXDESK_DATA_DIR: core.dataDir } }),
      'token from the token file',
    );
    const noToken = await runBox(['get', name], { env: { SERVICE_URL: core.url } });
    assert.equal(noToken.code, 1);
    assert.match(noToken.stderr, /^hint: no token given/m);

    // No URL given: the local core is found where it wrote that it listens (here not the default port).
    ok(await runBox(['get', name], { env: { BOXDESK_DATA_DIR: core.dataDir } }), 'the core found by its data dir');
  });

  test('token create, ls and rm; a read token cannot exec', async () => {
    const made = JSON.parse(
      ok(await cli('token', 'create', 'cli-e2e', '--scope', 'read', '-o', 'json'), 'token create').stdout,
    ) as TokenCreated;
    assert.deepEqual(made.scopes, ['read']);
    assert.ok(made.token.length > 10);
    const listed = JSON.parse(ok(await cli('token', 'ls', '-o', 'json'), 'token ls').stdout) as { items: Token[] };
    assert.ok(listed.items.some((t) => t.id === made.id && t.name === 'cli-e2e'));

    const asReader = boxCli(() => ({ url: core.url, token: made.token }));
    ok(await asReader('get', name), 'read with a read token');
    const forbidden = await asReader('exec', name, '--', 'true');
    assert.equal(forbidden.code, 125, 'Boxdesk refused, not the command');
    assert.ok(forbidden.stderr.trim().length > 0);
    // SERVICE_TOKEN is the token used: never replaced by the admin token file beside it.
    const viaEnv = await runBox(['exec', name, '--', 'true'], {
      env: { SERVICE_URL: core.url, SERVICE_TOKEN: made.token, BOXDESK_DATA_DIR: core.dataDir },
    });
    assert.equal(viaEnv.code, 125, 'the read token from SERVICE_TOKEN cannot exec');

    // Revoking the token this command uses is refused without a terminal to ask on, saying the way back.
    const self = JSON.parse(ok(await cli('token', 'ls', '-o', 'json'), 'token ls').stdout) as { items: Token[] };
    const own = self.items.find((t) => t.current)!;
    const refused = await cli('token', 'rm', own.id);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /the token this command uses.*-f\/--force.*--new-admin-token/s);
    assert.match(ok(await cli('token', 'ls'), 'token ls').stdout, /\(this one\)/);

    assert.match(ok(await cli('token', 'rm', made.id), 'token rm').stdout, /revoked/);
    const after = JSON.parse(ok(await cli('token', 'ls', '-o', 'json'), 'token ls').stdout) as { items: Token[] };
    assert.ok(!after.items.some((t) => t.id === made.id));
    assert.equal((await asReader('get', name)).code, 1, 'a revoked token is refused');
  });

  test('version, health and base ls', async () => {
    assert.match(ok(await cli('version'), 'version').stdout, /^core:\s+\S+ \(api v1\)/m);
    const health = ok(await cli('health'), 'health').stdout;
    assert.match(health, /^status:\s+ok/m);
    assert.ok(health.split('\n').includes(`default base: ${TEST_IMAGE} available`), health);
    assert.match(health, /^engine at:\s+(unix|tcp|ssh|https?):\/\/\S+ \(.+\)$/m, 'where the engine was found, and how');
    assert.match(
      health,
      new RegExp(`^storage:\\s+${TEST_STORAGE_DRIVER} at /`, 'm'),
      'the store, as GET /v1/system says',
    );
    assert.match(
      health,
      /^proxy edge:\s+version \S+: \d+ requests answered natively$/m,
      'who serves the preview proxy',
    );
    assert.match(ok(await cli('base', 'ls'), 'base ls').stdout, /^default\s/m);
  });

  test('fork copies the source box’s files into a new box', async () => {
    ok(await cli('exec', name, '--', 'sh', '-c', 'echo forked-data > /root-marker'), 'write a file');
    const fork = `${name}-f`;
    assert.match(ok(await cli('fork', name, fork), 'fork').stdout, /status:\s+running/);
    assert.equal(ok(await cli('exec', fork, '--', 'cat', '/root-marker'), 'read in the fork').stdout, 'forked-data\n');
    ok(await cli('rm', '-f', fork), 'rm -f fork');
  });

  test('exec -t runs on a terminal over the WebSocket and exits with its code', async () => {
    const run = await cli('exec', '-t', name, '--', 'sh', '-c', 'echo tty-ok; exit 3');
    assert.equal(run.code, 3, run.stderr);
    assert.equal(run.stdout, 'tty-ok\r\n', 'a terminal turns \\n into \\r\\n');
  });

  test('console runs a login shell and exits with the shell’s code; piped, its terminal queries stay out', async () => {
    const run = await runBox(['--url', core.url, '--token', core.token, 'console', name], {
      input: 'echo $((6*7))\nexit 5\n',
    });
    assert.equal(run.code, 5, run.stderr);
    assert.match(run.stdout, /^42\r?$/m);
    // Piped to a file, nothing answers the shell's questions to its terminal: they are not passed on.
    // eslint-disable-next-line no-control-regex
    assert.doesNotMatch(run.stdout, /\x1b\[[?>]?[0-9;]*[nc]/, JSON.stringify(run.stdout));
  });

  test('rm refuses a running box without -f (no terminal to ask on); with several names each is tried', async () => {
    const refused = await cli('rm', name);
    assert.equal(refused.code, 1);
    assert.match(
      refused.stderr,
      new RegExp(`box ${name} is running: stop it first \\(box stop ${name}\\), or pass -f/--force`),
    );
    assert.equal(ok(await cli('get', name), 'still there').code, 0);

    const several = await cli('rm', '-f', 'no-such-box', name);
    assert.equal(several.code, 1);
    assert.match(
      several.stdout,
      new RegExp(`^${name} deleted`, 'm'),
      'the second name is deleted after the first failed',
    );
    assert.match(several.stderr, /^no-such-box: .*not found/m);
    assert.match(several.stderr, /1 of 2 not deleted: no-such-box/);
    assert.equal((await cli('get', name)).code, 1);
  });
});
