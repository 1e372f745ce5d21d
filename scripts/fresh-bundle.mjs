// Which way to run the headless core: its bundle (npm run build:core) while no source it was made
// from is newer, else its TypeScript sources through tsx (a change not yet built is what runs).
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** dist/<dir>/<name>.mjs when it exists and is newer than every source in its inputs.json, else null. */
export function freshBundle(dir, name) {
  const file = path.join(root, 'dist', dir, `${name}.mjs`);
  try {
    const built = fs.statSync(file).mtimeMs;
    const inputs = JSON.parse(fs.readFileSync(path.join(root, 'dist', dir, 'inputs.json'), 'utf8'));
    return inputs.every((source) => fs.statSync(path.join(root, source)).mtimeMs <= built) ? file : null;
  } catch {
    return null; // no bundle, or a source it names is gone
  }
}

/** Node arguments that start the headless core: the fresh bundle, or serve.ts through tsx. */
export function coreArgs() {
  const bundled = freshBundle('core', 'serve');
  if (bundled) return [bundled];
  // tsx by its full URL, from this install: the caller's directory may be anywhere (`box serve`).
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  return ['--import', tsx, path.join(root, 'electron', 'core', 'serve.ts')];
}
