// Whether `npm run build` has anything to do: npm start builds only when it has.
import fs from 'node:fs';
import path from 'node:path';

/** What `npm run build` makes. */
export const BUILD_OUTPUTS = [
  'dist/renderer/index.html',
  'dist/electron/main.cjs',
  'dist/cli/box.mjs',
  'dist/core/serve.mjs',
  'dist/agent/manifest.json',
  'sdk/dist/index.js',
];
/** What it is made from (folders are walked, skipping node_modules, dist and dot folders). */
export const BUILD_SOURCES = [
  'renderer',
  'electron',
  'shared',
  'cli',
  'sdk',
  'agent',
  'scripts',
  'package.json',
  'package-lock.json',
];

function newestIn(entry) {
  const st = fs.statSync(entry, { throwIfNoEntry: false });
  if (!st) return 0;
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = 0;
  for (const e of fs.readdirSync(entry, { withFileTypes: true })) {
    if (e.name === 'node_modules' || e.name === 'dist' || e.name.startsWith('.')) continue;
    newest = Math.max(newest, newestIn(path.join(entry, e.name)));
  }
  return newest;
}

/** True when every output exists and no source is newer than the oldest of them. */
export function buildIsCurrent(root, outputs = BUILD_OUTPUTS, sources = BUILD_SOURCES) {
  const built = outputs.map((o) => fs.statSync(path.join(root, o), { throwIfNoEntry: false })?.mtimeMs ?? 0);
  if (built.some((t) => t === 0)) return false;
  return Math.max(...sources.map((s) => newestIn(path.join(root, s)))) < Math.min(...built);
}
