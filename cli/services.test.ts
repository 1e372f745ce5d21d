import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Deployment } from '../shared/schemas/services';
import { captureStream as capture } from '../test-support/cli-runner';
import { completionTree } from './completion-scripts';
import type { Io } from './context';
import { StepReporter, stepLine } from './follow-deployment';
import { COMMANDS, main } from './main';
import { buildProgram } from './program';
import { createBody } from './service-spec';

function io(): Io & { stdout: ReturnType<typeof capture>; stderr: ReturnType<typeof capture> } {
  // No core listens here: a command that got past its parser fails with 1, a usage error with 2.
  return {
    stdout: capture(),
    stderr: capture(),
    platform: { env: {}, platform: 'linux', homedir: '/nonexistent', readFile: () => undefined },
    fetch: (url, init) => fetch(url, init as RequestInit),
  };
}

async function run(...argv: string[]) {
  const i = io();
  const code = await main(['--url', 'http://127.0.0.1:9', ...argv], i, COMMANDS);
  return { code, stderr: i.stderr.text() };
}

const dep = (over: Partial<Deployment>): Deployment => ({
  id: 'dep_aaaaaaaaaaaaaaaaaaaa',
  service: 'web',
  project: 'default',
  kind: 'deploy',
  status: 'starting',
  color: 'green',
  box: 'web-green',
  base: 'default',
  command: null,
  environment: {},
  step: null,
  reason: null,
  created_at: '2026-11-24T04:00:00.000Z',
  updated_at: '2026-11-24T04:00:00.000Z',
  live_at: null,
  ...over,
});

describe('box service create: the body', () => {
  it('turns --command into sh -c, -- CMD ARGS into the exact argv, and gathers env, volumes, health and auth', () => {
    const body = createBody(
      'web',
      {
        port: 8080,
        command: 'echo v$VERSION',
        env: ['VERSION=1'],
        volume: ['data:/srv:ro'],
        healthPath: '/up',
        healthInterval: 0.2,
        auth: 'public',
      },
      [],
    );
    assert.deepEqual(body, {
      name: 'web',
      port: 8080,
      command: ['sh', '-c', 'echo v$VERSION'],
      environment: { VERSION: '1' },
      data_mounts: [{ name: 'data', path: '/srv', read_only: true }],
      health_check: { path: '/up', interval_s: 0.2 },
      auth: 'public',
    });
    // After --, each argument stays one argument, exactly as typed: spaces, quotes, $ and empty ones too.
    const argv = ['sh', '-c', 'echo "v$VERSION" > /srv/index.html && exec httpd -f -p 80', 'name with space', ''];
    assert.deepEqual(createBody('web', { port: 80 }, argv), { name: 'web', port: 80, command: argv });
    assert.throws(
      () => createBody('web', { port: 80, command: 'httpd' }, ['httpd']),
      /either as --command STRING or after --, not both/,
    );
  });
});

describe('box service / deploy / rollback: the command line', () => {
  it('refuses a missing --port, both command forms, a too-short interval and an unknown auth with exit 2', async () => {
    for (const argv of [
      ['service', 'create', 'web'],
      ['service', 'create', 'web', '--port', '80', '--command', 'httpd', '--', 'httpd'],
      ['service', 'create', 'web', '--port', '80', '--health-interval', '0.01'],
      ['service', 'create', 'web', '--port', '80', '--auth', 'everyone'],
      ['deploy', 'web', '--timeout', '5'],
      ['rollback'],
      ['service', 'update', 'web'],
    ]) {
      const r = await run(...argv);
      assert.equal(r.code, 2, `${argv.join(' ')}: ${r.stderr}`);
    }
  });

  it('passes a good command line on to the core: the event stream first, then the deployment with -e as its environment', async () => {
    // The real fetch, watched: no core listens on port 9, so each request fails after it is recorded.
    const i = io();
    const asked: string[] = [];
    i.fetch = (url, init) => {
      asked.push(`${init?.method} ${url} ${init?.body ?? ''}`.trim());
      return fetch(url, init as RequestInit);
    };
    const code = await main(
      ['--url', 'http://127.0.0.1:9', 'deploy', 'web', '-e', 'VERSION=2', '--wait', '--timeout', '5'],
      i,
      COMMANDS,
    );
    assert.equal(code, 1, i.stderr.text());
    assert.deepEqual(asked, [
      'GET http://127.0.0.1:9/v1/events',
      'POST http://127.0.0.1:9/v1/projects/default/services/web/deployments {"environment":{"VERSION":"2"}}',
    ]);
    assert.match(i.stderr.text(), /^cannot reach the Boxdesk core at http:\/\/127\.0\.0\.1:9 /);
  });

  it('is in the completion tree', () => {
    const nodes = completionTree(buildProgram(io(), COMMANDS).program);
    const paths = nodes.map((n) => n.path);
    for (const p of [
      'service',
      'service create',
      'service ls',
      'service get',
      'service update',
      'service rm',
      'service deployments',
      'deploy',
      'rollback',
    ])
      assert.ok(paths.includes(p), p);
    const create = nodes.find((n) => n.path === 'service create')!;
    assert.deepEqual(create.options.find((o) => o.flags.includes('--auth'))?.choices, ['public', 'token']);
  });
});

describe('the steps of a deployment', () => {
  it('says the status and the step, and the reason when it failed', () => {
    assert.equal(stepLine(dep({ step: 'health check 1/2 passed' })), 'starting: health check 1/2 passed');
    assert.equal(stepLine(dep({ status: 'live' })), 'live');
    assert.equal(stepLine(dep({ status: 'failed', reason: 'GET / answered 500' })), 'failed: GET / answered 500');
  });

  it('prints one line per change when stderr is not a terminal, none for a repeat', () => {
    const stderr = capture();
    const r = new StepReporter('deploying web', stderr);
    r.update(dep({ status: 'pending' }));
    r.update(dep({ step: 'starting box web-green' }));
    r.update(dep({ step: 'starting box web-green' }));
    r.update(dep({ status: 'live' }));
    r.end(true);
    assert.equal(
      stderr.text(),
      'deploying web: pending\ndeploying web: starting: starting box web-green\ndeploying web: live\n',
    );
  });
});
