// npm run build: every build:* step of package.json, side by side. They share nothing but dist/
// (the window's bundle, the SDK's types and the store's helper took most of the time one after
// another). A step that fails prints its output, and the build exits 1 once all have ended.
import { spawn } from 'node:child_process';
import fs from 'node:fs';

const scripts = JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')).scripts;
const steps = Object.keys(scripts).filter((name) => name.startsWith('build:'));
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

const results = await Promise.all(
  steps.map(
    (step) =>
      new Promise((resolve) => {
        let output = '';
        const child = spawn(npm, ['run', '--silent', step], { stdio: ['ignore', 'pipe', 'pipe'] });
        child.stdout.on('data', (d) => (output += d));
        child.stderr.on('data', (d) => (output += d));
        child.on('error', (err) => resolve({ step, ok: false, output: `${output}${err.message}\n` }));
        child.on('close', (code) => resolve({ step, ok: code === 0, output }));
      }),
  ),
);
for (const { step, ok, output } of results) {
  if (ok) process.stdout.write(output);
  else process.stderr.write(`npm run ${step} failed:\n${output}`);
}
process.exit(results.every((r) => r.ok) ? 0 : 1);
