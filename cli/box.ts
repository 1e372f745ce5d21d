import { cli } from './main';

// A reader that stops early (`box ls | head -1`) closes the pipe: stop quietly, as `box logs`
// does, instead of dying on EPIPE with a stack trace.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code !== 'EPIPE') throw err;
  process.exit(0);
});

await cli();
