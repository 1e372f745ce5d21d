// Runs test files in the order given, N at a time, with the spec reporter on stdout.
//
//   node --import tsx scripts/run-tests.mjs --concurrency 2 FILE...
//
// `node --test FILE...` sorts its files by name, so a list written slowest-first would still
// start the slowest files last; node:test's run() keeps the order (longest-first scheduling:
// the lanes end together). Each file runs in a child process with this process's flags
// (`--import tsx`). Exits 1 when any test fails or any file cannot run.
import fs from 'node:fs';
import { run } from 'node:test';
import { spec } from 'node:test/reporters';
import { parseArgs } from 'node:util';

const { values, positionals: files } = parseArgs({
  options: { concurrency: { type: 'string', default: '2' } },
  allowPositionals: true,
});
const concurrency = Number(values.concurrency);
if (!Number.isInteger(concurrency) || concurrency < 1 || files.length === 0) {
  console.error('usage: node --import tsx scripts/run-tests.mjs [--concurrency N] FILE...');
  process.exit(2);
}

const stream = run({ files, concurrency });
const perFile = new Map();
function count(event) {
  const { file, nesting, details } = event;
  if (file && nesting === 0) perFile.set(file, (perFile.get(file) ?? 0) + (details?.duration_ms ?? 0));
}
stream.on('test:pass', count);
stream.on('test:fail', (event) => {
  count(event);
  process.exitCode = 1;
});
stream.on('end', () => {
  if (!process.env.BOXDESK_TEST_TIMES) return;
  const rows = [...perFile].sort((a, b) => b[1] - a[1]);
  const lines = rows.map(
    ([file, ms]) => `${(ms / 1000).toFixed(1).padStart(7)} s  ${file.replace(`${process.cwd()}/`, '')}`,
  );
  fs.writeFileSync(process.env.BOXDESK_TEST_TIMES, lines.join('\n') + '\n');
});
stream.compose(spec).pipe(process.stdout);
