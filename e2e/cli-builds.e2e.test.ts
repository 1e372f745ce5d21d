import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Box } from '../shared/schemas/box';
import { boxCli, ok } from '../test-support/cli-runner';
import { startCoreProcess, tempDataDir, type CoreProcess } from '../test-support/core-process';
import { teardown } from '../test-support/teardown';

const P = 'cliup';
const workDir = tempDataDir('boxdesk-cli-up-');
let core: CoreProcess;
const box = boxCli(() => core, { project: P });

function write(files: Record<string, string>): void {
  for (const [name, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(workDir, name)), { recursive: true });
    fs.writeFileSync(path.join(workDir, name), content);
  }
}

before(async () => {
  core = await startCoreProcess();
});

after(() => teardown(core, { projects: [P], bases: true, paths: [workDir] }));

test('box base build streams the log and builds from a Boxdesk base; a failing step exits 1 naming it', async () => {
  const nonce = Date.now();
  write({
    'tools/Dockerfile': `FROM boxdesk/default\nARG WHO\nRUN echo "built for $WHO ${nonce}" > /etc/who && cat /etc/who\n`,
    'broken.Dockerfile': `FROM boxdesk/default\nRUN echo broken-${nonce} && false\n`,
  });
  const built = ok(await box('base', 'build', 'tools', '--build-arg', 'WHO=cli', path.join(workDir, 'tools')), 'build');
  assert.equal(built.stdout, 'tools\n');
  assert.match(built.stderr, /^Step 1\/3 FROM boxdesk\/default$/m);
  assert.match(built.stderr, new RegExp(`^built for cli ${nonce}$`, 'm'), 'the RUN output is streamed');
  assert.match(built.stderr, /^base tools built; 0 of 3 steps from the cache, run again from step 2\/3 ARG WHO$/m);
  // Again: the engine's cache serves every step, and the summary says nothing changed.
  const again = ok(
    await box('base', 'build', 'tools', '--build-arg', 'WHO=cli', path.join(workDir, 'tools')),
    'rebuild',
  );
  assert.match(again.stderr, /^base tools built; 2 of 3 steps from the cache, nothing changed$/m);
  const failed = await box('base', 'build', 'broken', '-f', path.join(workDir, 'broken.Dockerfile'), workDir);
  assert.equal(failed.code, 1, failed.stderr);
  assert.match(
    failed.stderr,
    /the build of base broken failed: step 2\/2 RUN echo broken-\d+ && false failed: .*non-zero code: 1/,
  );
  assert.match(failed.stderr, new RegExp(`its last lines:\\nbroken-${nonce}`));
});

test('box up: a devcontainer.json folder becomes a box with its files, env, command output and published port', async () => {
  write({
    'app/.devcontainer/devcontainer.json': `{
      // a dev container as VS Code reads it
      "name": "Up App",
      "build": { "dockerfile": "Dockerfile", "context": ".." },
      "containerEnv": { "GREETING": "hello" },
      "forwardPorts": [8080],
      "postCreateCommand": "echo post-create $GREETING && cat src/main.txt",
      "features": { "ghcr.io/devcontainers/features/node:1": {} },
    }`,
    'app/.devcontainer/Dockerfile': 'FROM boxdesk/default\nCOPY src/main.txt /opt/main.txt\n',
    'app/src/main.txt': 'main file\n',
    'app/.gitignore': 'node_modules/\n*.log\n',
    'app/.boxdeskignore': 'secret.txt\n',
    'app/node_modules/m/index.js': 'x',
    'app/debug.log': 'x',
    'app/secret.txt': 'x',
  });
  const dir = path.join(workDir, 'app');
  const up = ok(await box('up', dir), 'up');
  assert.equal(up.stdout.trim().split('\n').at(-1), 'up-app', "the box's name comes last");
  assert.match(
    up.stderr,
    /note: \.devcontainer\/devcontainer\.json: "features" is ignored \(features are fetched from a registry\)/,
  );
  assert.match(up.stderr, /^post-create hello\nmain file$/m, "the command's output is shown");
  assert.match(up.stderr, /port 8080 published at http:\/\/up-app--cliup\.localhost:\d+/);
  const listing = ok(
    await box(
      'exec',
      'up-app',
      '--',
      'sh',
      '-c',
      'cd /workspace && find . -type f | sort && cat /opt/main.txt && echo $GREETING',
    ),
    'exec',
  );
  assert.equal(
    listing.stdout,
    './.boxdeskignore\n./.devcontainer/Dockerfile\n./.devcontainer/devcontainer.json\n./.gitignore\n./src/main.txt\nmain file\nhello\n',
  );
  const got = JSON.parse(ok(await box('get', 'up-app', '-o', 'json'), 'get').stdout) as Box;
  assert.equal(got.port, 8080);
  assert.match(got.url ?? '', /^http:\/\/up-app--cliup\.localhost:/);
  // Again on the same folder: the same box, the base from the engine's cache, nothing to copy.
  const again = ok(await box('up', dir), 'up again');
  assert.equal(again.stdout, 'up-app\n');
  assert.match(again.stderr, /box up-app exists \(made by an earlier box up\): bringing it up to date/);
  assert.match(again.stderr, /^base up-cliup-up-app built; 1 of 2 steps from the cache, nothing changed$/m);
  assert.match(again.stderr, /^no file changed since the last box up of up-app$/m);
});
