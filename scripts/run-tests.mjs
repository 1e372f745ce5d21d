// Runs test files in the order given, N at a time, with the spec reporter on stdout.
//
//   node scripts/run-tests.mjs --concurrency 2 FILE...
//
// `node --test FILE...` sorts its files by name, so a list written slowest-first would still
// start the slowest files last; node:test's run() keeps the order (longest-first scheduling:
// the lanes end together). Each file runs in a child process; node:test gives it this process's
// own flags too, so the runner itself is started without tsx. Exits 1 when any test fails or any
// file cannot run.
//
// The files run as bundles (scripts/bundle-tests.mjs) unless BOXDESK_TEST_BUNDLE=0, in processes
// without tsx: a test process then loads one file instead of tsx compiling and resolving its few
// hundred sources, and tsx's loader hooks are not in the way of every import (measured here: a
// small integration file took 1.7 s of CPU through tsx, 0.85 s as a bundle without it; the same
// bundle with tsx loaded still took 1.7 s). A test that starts TypeScript itself (a core from
// source, a crash child) names tsx on that command line. With BOXDESK_TEST_BUNDLE=0 the files run
// through tsx as sources.
import fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import path from 'node:path';
import { run } from 'node:test';
import { spec } from 'node:test/reporters';
import { parseArgs } from 'node:util';
import { bundleTests, sourceLocation } from './bundle-tests.mjs';

const { values, positionals: files } = parseArgs({
  options: { concurrency: { type: 'string', default: '2' } },
  allowPositionals: true,
});
const concurrency = Number(values.concurrency);
if (!Number.isInteger(concurrency) || concurrency < 1 || files.length === 0) {
  console.error('usage: node scripts/run-tests.mjs [--concurrency N] FILE...');
  process.exit(2);
}

const bundle = process.env.BOXDESK_TEST_BUNDLE !== '0';
const bundled = bundle ? await bundleTests(files) : files;
const sourceOf = new Map(bundled.map((b, i) => [path.resolve(b), files[i]]));
// Failures and stack traces name the sources: the bundles carry inline source maps.
const execArgv = bundle ? ['--enable-source-maps'] : ['--import', 'tsx'];
// BOXDESK_TEST_CPU=FILE: each file's CPU seconds (its own and its children's) go to FILE, and the
// runner prints the costliest files at the end (scripts/cpu-meter.mjs).
const cpuFile = process.env.BOXDESK_TEST_CPU;
if (cpuFile) {
  fs.writeFileSync(cpuFile, ''); // this run's figures only
  execArgv.push('--import', path.join(import.meta.dirname, 'cpu-meter.mjs'));
}
const stream = run({ files: bundled, concurrency, execArgv });
const perFile = new Map();
function count(event) {
  const { nesting, details } = event;
  const file = event.file && (sourceOf.get(path.resolve(event.file)) ?? event.file);
  if (file && nesting === 0) perFile.set(file, (perFile.get(file) ?? 0) + (details?.duration_ms ?? 0));
}
stream.on('test:pass', count);
stream.on('test:fail', (event) => {
  count(event);
  process.exitCode = 1;
});
/** The machine's CPU counters (Linux): how busy the lane kept it says whether more files at once could help. */
function cpuTicks() {
  try {
    const [, ...fields] = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
    const n = fields.map(Number);
    return { idle: n[3] + n[4], total: n.reduce((a, b) => a + b, 0) };
  } catch {
    return null;
  }
}
const startedAt = { ms: performance.now(), cpu: cpuTicks() };
stream.on('end', () => {
  const end = cpuTicks();
  if (end && startedAt.cpu) {
    const idle = (100 * (end.idle - startedAt.cpu.idle)) / Math.max(1, end.total - startedAt.cpu.total);
    const seconds = (performance.now() - startedAt.ms) / 1000;
    console.log(
      `# ${files.length} files in ${seconds.toFixed(0)} s, ${concurrency} at a time; the CPUs were ${idle.toFixed(0)}% idle meanwhile`,
    );
  }
  if (cpuFile) printCpu(cpuFile);
  if (!process.env.BOXDESK_TEST_TIMES) return;
  const rows = [...perFile].sort((a, b) => b[1] - a[1]);
  const lines = rows.map(
    ([file, ms]) => `${(ms / 1000).toFixed(1).padStart(7)} s  ${file.replace(`${process.cwd()}/`, '')}`,
  );
  fs.writeFileSync(process.env.BOXDESK_TEST_TIMES, lines.join('\n') + '\n');
});
/** The files that took the most CPU (scripts/cpu-meter.mjs's lines), and the lane's total. */
function printCpu(file) {
  let rows;
  try {
    rows = fs
      .readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
  } catch {
    return;
  }
  const named = rows.map((r) => ({
    ...r,
    file: sourceOf.get(path.resolve(r.file)) ?? r.file,
    total: r.own + r.children,
  }));
  named.sort((a, b) => b.total - a.total);
  const sum = named.reduce((s, r) => s + r.total, 0);
  console.log(`# CPU: ${sum.toFixed(0)} s in ${named.length} test processes and the children they waited for`);
  for (const r of named.slice(0, 40)) {
    console.log(`# ${r.total.toFixed(1).padStart(7)} s (own ${r.own.toFixed(1)})  ${r.file}`);
  }
}
// The reporter names a test's place in its source, not in the bundle.
const inSource = (event) => {
  const data = event.data;
  if (bundle && data?.file && data.line) {
    const place = sourceLocation(path.resolve(data.file), data.line, data.column ?? 1);
    if (place) Object.assign(data, place);
  }
  return event;
};
stream.map(inSource).compose(spec).pipe(process.stdout);
