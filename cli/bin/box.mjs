#!/usr/bin/env node
// The `box` CLI. Runs the bundle `npm run build` makes (dist/cli/box.mjs) when it is there and no
// source it was made from has changed since; otherwise registers tsx and runs the TypeScript sources.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const bundle = path.join(root, 'dist', 'cli', 'box.mjs');

function bundleIsFresh() {
  try {
    const built = fs.statSync(bundle).mtimeMs;
    const inputs = JSON.parse(fs.readFileSync(path.join(root, 'dist', 'cli', 'inputs.json'), 'utf8'));
    return inputs.every((file) => fs.statSync(path.join(root, file)).mtimeMs <= built);
  } catch {
    return false; // no bundle, or a source it names is gone: the sources it is
  }
}

if (bundleIsFresh()) {
  await import(pathToFileURL(bundle).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../box.ts');
}
