import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, test } from 'node:test';
import { boxCli, ok } from '../test-support/cli-runner';
import { api, startCoreProcess, tempDataDir, type CoreProcess } from '../test-support/core-process';
import { previewRequest } from '../test-support/preview-http';
import { teardown } from '../test-support/teardown';

const PROJECT = 'clisvc';
const NAME = `web-${crypto.randomBytes(3).toString('hex')}`;
const SERVE = 'mkdir -p /srv && echo v$VERSION > /srv/index.html && exec httpd -f -p 8080 -h /srv';
const work = tempDataDir('boxdesk-cli-services-');
/** Terminal escape sequences (colors, cursor moves), to read what a terminal would show. */
const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;?]*[A-Za-z]`, 'g');

interface ApiDeployment {
  id: string;
  kind: string;
  status: string;
  color: string;
  environment: Record<string, string>;
  reason: string | null;
}

let core: CoreProcess;
/** `box` as a user of the local core runs it: SERVICE_URL, the core's token file, BOX_PROJECT. */
const box = boxCli(() => core, { project: PROJECT, connection: 'local', cwd: work });

/** What the service's URL serves now, through the proxy. */
async function page(url: URL): Promise<string> {
  const res = await previewRequest(Number(url.port), url.host, '/');
  assert.equal(res.status, 200, `GET ${url.origin}/ answered ${res.status}: ${res.body}`);
  return res.body.trim();
}

async function deployments(): Promise<ApiDeployment[]> {
  return (
    JSON.parse(ok(await box('service', 'deployments', NAME, '-o', 'json'), 'service deployments').stdout) as {
      items: ApiDeployment[];
    }
  ).items;
}

before(async () => {
  core = await startCoreProcess();
});
after(() => teardown(core, { projects: [PROJECT], paths: [work] }));

let url: URL;

test('box service create --wait follows the first deployment to live and prints the URL, which serves v1', async () => {
  const run = ok(
    await box(
      'service',
      'create',
      NAME,
      '--port',
      '8080',
      '-e',
      'VERSION=1',
      '--health-interval',
      '0.2',
      '--start-timeout',
      '20',
      '--auth',
      'public',
      '--wait',
      '--command',
      SERVE,
    ),
    'service create --wait',
  );
  // Not a terminal: one line per step on stderr, ending live.
  const steps = run.stderr.trim().split('\n');
  assert.ok(
    steps.some((l) => l === `creating ${NAME}: starting: health check 2/2 passed`),
    run.stderr,
  );
  assert.ok(
    steps.every((l) => l.startsWith(`creating ${NAME}: `)),
    run.stderr,
  );
  assert.equal(steps.at(-1), `creating ${NAME}: live`);
  const m = /is live on blue \(dep_\w+\): (http:\/\/\S+)$/.exec(run.stdout.trim());
  assert.ok(m, run.stdout);
  url = new URL(m[1]!);
  assert.equal(url.hostname, `${NAME}--${PROJECT}.localhost`);
  assert.equal(await page(url), 'v1');

  const ls = ok(await box('service', 'ls'), 'service ls').stdout;
  assert.match(ls, new RegExp(`^${NAME}\\s+blue \\(dep_\\w+\\)\\s+${url.origin.replace(/[.]/g, '\\.')}`, 'm'));
  const got = JSON.parse(ok(await box('service', 'get', NAME, '-o', 'json'), 'service get').stdout) as {
    active_deployment: { color: string };
    health_check: { interval_s: number };
  };
  assert.deepEqual([got.active_deployment.color, got.health_check.interval_s], ['blue', 0.2]);
});

test('box service create without --wait prints the URL with the proxy port, as the card and service ls show it', async () => {
  const { proxy_port } = (await (await api(core, 'GET', '/v1/system')).json()) as { proxy_port: number };
  assert.equal(url.port, String(proxy_port), 'the URL --wait printed');
  const other = `${NAME}-b`;
  const run = ok(
    await box('service', 'create', other, '--port', '8080', '--auth', 'public', '--command', SERVE),
    'service create',
  );
  assert.equal(
    run.stdout,
    `service ${other} created; its first deployment is under way (add --wait to follow it)\n` +
      `http://${other}--${PROJECT}.localhost:${proxy_port}\n`,
  );
  ok(await box('service', 'rm', other), 'service rm');
});

test('box deploy -e VERSION=2 --wait shows the steps, ends live on green, and the URL answers v2', async () => {
  const run = ok(await box('deploy', NAME, '-e', 'VERSION=2', '--wait'), 'deploy --wait');
  const steps = run.stderr.trim().split('\n');
  assert.ok(
    steps.some((l) => l === `deploying ${NAME}: starting: health check 1/2 passed`),
    run.stderr,
  );
  // The switch, then the old color drains and goes before the command returns.
  assert.ok(
    steps.some((l) => l === `deploying ${NAME}: live: removing ${NAME}-blue`),
    run.stderr,
  );
  assert.equal(steps.at(-1), `deploying ${NAME}: live`);
  assert.match(run.stdout, new RegExp(`^${NAME} is live on green \\(dep_\\w+\\): ${url.origin}\\n$`));
  assert.equal(await page(url), 'v2');

  const [v2, v1] = await deployments();
  assert.deepEqual([v2!.status, v2!.color, v2!.environment.VERSION], ['live', 'green', '2']);
  assert.deepEqual([v1!.status, v1!.color, v1!.environment.VERSION], ['superseded', 'blue', '1']);
  assert.match(ok(await box('service', 'deployments', NAME), 'deployments').stdout, /^ID\s+KIND\s+STATUS\s+COLOR/);
});

test('box rollback --wait goes back to v1 on blue; the previous live deployment is marked rolled back', async () => {
  const run = ok(await box('rollback', NAME, '--wait', '-o', 'json'), 'rollback --wait');
  const d = JSON.parse(run.stdout) as ApiDeployment;
  assert.deepEqual([d.kind, d.status, d.color, d.environment.VERSION], ['rollback', 'live', 'blue', '1']);
  assert.match(run.stderr, new RegExp(`rolling back ${NAME}: live\\n$`));
  assert.equal(await page(url), 'v1');
  const [rollback, v2] = await deployments();
  assert.equal(rollback!.id, d.id);
  assert.equal(v2!.status, 'rolled_back');
});

test('on a terminal, deploy --wait shows the step in a spinner and ends with a tick', async () => {
  const onTerminal = boxCli(() => core, { project: PROJECT, cwd: work, terminal: { cols: 120, rows: 40 } });
  const run = await onTerminal('deploy', NAME, '-e', 'VERSION=3', '--wait');
  ok(run, 'deploy --wait on a terminal');
  const plain = run.stdout.replace(ANSI, '');
  // The spinner redraws one line with each step (no line per step) and leaves the last state with a tick.
  assert.match(plain, new RegExp(`deploying ${NAME}: starting: creating box ${NAME}-green`));
  assert.equal(
    plain.split('\n').filter((l) => l.includes(`deploying ${NAME}:`)).length,
    1,
    'one redrawn line, not a line per step',
  );
  assert.match(plain, new RegExp(`[✔√] deploying ${NAME}: live\r?\n${NAME} is live on green`));
  assert.equal(await page(url), 'v3');
});

test('a deploy whose command dies fails with exit 1 and its reason; the live color keeps serving', async () => {
  const run = await box('deploy', NAME, '--command', 'echo broken on purpose; exit 3', '--wait');
  assert.equal(run.code, 1, `${run.stdout}\n${run.stderr}`);
  assert.match(run.stderr, new RegExp(`deploying ${NAME}: failed: `));
  assert.match(run.stderr, /deployment dep_\w+ of .* failed: /);
  assert.equal(await page(url), 'v3');
  const [failed] = await deployments();
  assert.equal(failed!.status, 'failed');
  assert.ok(failed!.reason, 'a failed deployment says why');
});

test('box service update edits the spec of the next deploy: -e merges over the variables (K- removes), --base-command forgets the command', async () => {
  type Spec = {
    environment: Record<string, string>;
    health_check: { healthy_threshold: number };
    command: string[] | null;
  };
  const updated = JSON.parse(
    ok(await box('service', 'update', NAME, '--healthy-threshold', '3', '-e', 'EXTRA=1', '-o', 'json'), 'update')
      .stdout,
  ) as Spec;
  assert.equal(updated.health_check.healthy_threshold, 3);
  assert.deepEqual(updated.environment, { VERSION: '3', EXTRA: '1' });
  const again = JSON.parse(
    ok(await box('service', 'update', NAME, '-e', 'EXTRA-', '--base-command', '-o', 'json'), 'update').stdout,
  ) as Spec;
  assert.deepEqual([again.environment, again.command], [{ VERSION: '3' }, null]);
  assert.match(
    ok(await box('service', 'get', NAME), 'get').stdout,
    /^health_check: GET \/ every 0\.2 s \(timeout 2 s\), healthy after 3 in a row/m,
  );
});

test('usage errors exit 2; box service rm takes the URL away', async () => {
  assert.equal((await box('service', 'create', 'other', '--command', 'true')).code, 2);
  assert.equal((await box('deploy', NAME, '--timeout', '5')).code, 2);
  const missing = await box('deploy', 'no-such-service', '--wait');
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /no-such-service/);

  assert.match(ok(await box('service', 'rm', NAME), 'service rm').stdout, new RegExp(`service ${NAME} deleted`));
  assert.equal((await previewRequest(Number(url.port), url.host, '/')).status, 404);
  assert.match(ok(await box('service', 'ls'), 'service ls').stdout, /no services in project clisvc/);
});
