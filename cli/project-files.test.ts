import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { projectFiles } from './project-files';

function folder(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'box-up-'));
  for (const [name, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), content);
  }
  return dir;
}

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
