import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { BUILD_OUTPUTS, BUILD_SOURCES, buildIsCurrent } from '../scripts/build-state.mjs';

// npm start builds only when a source is newer than what the last build made (issue 20: the UI
// was rebuilt at every start). A tree of files with set times: outputs, sources, and a dist
// folder inside a source folder (sdk/dist), which is output, not source.

function tree(): { root: string; touch(file: string, secondsAgo: number): void } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'boxdesk-build-state-'));
  const touch = (file: string, secondsAgo: number) => {
    const full = path.join(root, file);
    fs.mkdirSync(path.dirname(full), { recursive: true });
    if (!fs.existsSync(full)) fs.writeFileSync(full, '');
    const at = new Date(Date.now() - secondsAgo * 1000);
    fs.utimesSync(full, at, at);
  };
  return { root, touch };
}

test('current when every output is newer than every source; a newer source or a missing output means build', (t) => {
  const { root, touch } = tree();
  t.after(() => fs.rmSync(root, { recursive: true, force: true }));
  const outputs = ['dist/ui/index.html', 'sdk/dist/index.js'];
  const sources = ['ui', 'sdk', 'package.json'];
  touch('ui/app.tsx', 100);
  touch('sdk/src/index.ts', 100);
  touch('package.json', 100);
  assert.equal(buildIsCurrent(root, outputs, sources), false, 'never built');
  touch('dist/ui/index.html', 50);
  touch('sdk/dist/index.js', 40);
  assert.equal(buildIsCurrent(root, outputs, sources), true, 'built after every source; sdk/dist is not a source');
  touch('ui/app.tsx', 10);
  assert.equal(buildIsCurrent(root, outputs, sources), false, 'a source changed since');
  touch('dist/ui/index.html', 5);
  touch('sdk/dist/index.js', 5);
  assert.equal(buildIsCurrent(root, outputs, sources), true);
  fs.rmSync(path.join(root, 'sdk/dist/index.js'));
  assert.equal(buildIsCurrent(root, outputs, sources), false, 'an output is missing');
});

test('every part npm run build makes is an output, and every source folder is there', () => {
  const root = path.resolve(import.meta.dirname, '..');
  const scripts = (
    JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
  ).scripts;
  // npm run build runs every build:* script (scripts/build.mjs).
  const parts = Object.keys(scripts)
    .filter((name) => name.startsWith('build:'))
    .map((name) => name.slice('build:'.length));
  assert.ok(parts.length >= 6, `build steps: ${parts.join(', ')}`);
  for (const part of parts) {
    const made = part === 'sdk' ? 'sdk/dist/' : `dist/${part}/`;
    assert.ok(
      BUILD_OUTPUTS.some((o) => o.startsWith(made)),
      `an output of build:${part} (${made}…)`,
    );
  }
  for (const source of BUILD_SOURCES) assert.ok(fs.existsSync(path.join(root, source)), source);
});
