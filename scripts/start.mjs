// `npm start`: build, then run the desktop app — or, when Electron's binary is
// not installed and cannot be fetched, the headless core serving the same UI.
import './check-node.mjs';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildIsCurrent } from './build-state.mjs';
import { coreArgs } from './fresh-bundle.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const passThrough = process.argv.slice(2).filter((a) => a !== '--');
const electronDir = path.join(root, 'node_modules', 'electron');

function run(command, args) {
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' });
  if (result.status !== 0) {
    console.error(`boxdesk: \`${command} ${args.join(' ')}\` failed`);
    process.exit(result.status ?? 1);
  }
}

/** The Electron executable, found without electron/index.js (which downloads as a side effect). */
function installedElectron() {
  const pathFile = path.join(electronDir, 'path.txt');
  if (!fs.existsSync(pathFile)) return null;
  const relative = fs.readFileSync(pathFile, 'utf8').trim();
  const distDir = process.env.ELECTRON_OVERRIDE_DIST_PATH ?? path.join(electronDir, 'dist');
  const executable = path.join(distDir, relative);
  return fs.existsSync(executable) ? executable : null;
}

/** Returns the executable, or the reason there is none. */
function findElectron() {
  if (!fs.existsSync(path.join(electronDir, 'install.js'))) return { reason: 'the electron package is not installed' };
  const found = installedElectron();
  if (found) return { executable: found };
  console.log("boxdesk: Electron's binary is not installed; trying to download it once (60 s at most)…");
  const attempt = spawnSync(process.execPath, [path.join(electronDir, 'install.js')], {
    cwd: root,
    encoding: 'utf8',
    timeout: 60_000,
  });
  const retried = installedElectron();
  if (retried) return { executable: retried };
  if (attempt.error)
    return { reason: attempt.error.code === 'ETIMEDOUT' ? 'the download took more than 60 s' : attempt.error.message };
  const firstLine = `${attempt.stderr}\n${attempt.stdout}`
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l && !l.startsWith('at '));
  return { reason: firstLine ?? `install.js exited with ${attempt.status}` };
}

function forwardSignals(child) {
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.on(signal, () => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    });
  }
  child.on('exit', (code, signal) =>
    process.exit(code ?? (signal ? 128 + ({ SIGINT: 2, SIGTERM: 15 }[signal] ?? 1) : 1)),
  );
}

function startElectron(executable) {
  console.log(`boxdesk: starting Electron (${executable})`);
  forwardSignals(spawn(executable, [root, ...passThrough], { cwd: root, stdio: 'inherit' }));
}

/**
 * The core's stdout comes through this process (to find the sign-in link), so the core sees a pipe:
 * when this one prints to a terminal, ask it for readable log lines (in colour) unless told otherwise.
 */
function logFormatFor() {
  const chosen =
    passThrough.some((a) => a === '--log-format' || a.startsWith('--log-format=')) || process.env.BOXDESK_LOG_FORMAT;
  if (chosen || !process.stdout.isTTY) return { args: [], env: process.env };
  return {
    args: ['--log-format', 'pretty'],
    env: process.env.NO_COLOR ? process.env : { FORCE_COLOR: '1', ...process.env },
  };
}

function startHeadless(reason) {
  console.warn(`boxdesk: ${reason}; serving the UI headless instead.`);
  const log = logFormatFor();
  const child = spawn(
    process.execPath,
    [...coreArgs(), '--ui-dir', path.join(root, 'dist', 'renderer'), ...log.args, ...passThrough],
    {
      cwd: root,
      env: log.env,
      stdio: ['inherit', 'pipe', 'inherit'],
    },
  );
  let banner = false;
  let seen = '';
  child.stdout.on('data', (chunk) => {
    process.stdout.write(chunk);
    if (banner) return;
    seen += chunk.toString();
    const m = /sign in at (http:\/\/\S+)/.exec(seen);
    if (m) {
      banner = true;
      console.log(
        `\n  Boxdesk is running headless.\n  Open this address in your browser to sign in:\n    ${m[1]}\n  (Ctrl-C stops it.)\n`,
      );
    }
  });
  forwardSignals(child);
}

/** Electron, or the reason it cannot run. (better-sqlite3 is a Node-API addon: the one npm installed loads in Electron too.) */
function electronReady() {
  const electron = findElectron();
  if (!electron.executable)
    return { reason: `Electron's binary is not installed and could not be downloaded (${electron.reason})` };
  return electron;
}

if (buildIsCurrent(root)) console.log('boxdesk: the build is current (no source is newer); not building again');
else run('npm', ['run', '--silent', 'build']);
const electron = electronReady();
if (electron.executable) startElectron(electron.executable);
else startHeadless(electron.reason);
