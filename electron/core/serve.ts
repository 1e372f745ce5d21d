import fs from 'node:fs';
import path from 'node:path';
import { ConfigError, USAGE, resolveConfig } from './config';
import { startCore } from './core';

/**
 * A reader of the core's output that goes away (`npm run serve | head`, a closed terminal, a
 * parent that stopped reading) must not take the core and its boxes' state with it: a write to a
 * closed pipe (EPIPE) is dropped; the core goes on, and still shuts down cleanly on SIGTERM.
 */
function outliveClosedOutput(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPIPE') throw err;
    });
  }
}

/** The headless core: `npm run serve -- --port 7420 --data-dir DIR ...` */
async function main(): Promise<void> {
  outliveClosedOutput();
  const argv = process.argv.slice(2).filter((a) => a !== '--');
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(USAGE);
    return;
  }
  let config;
  try {
    config = resolveConfig(argv);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`boxdesk: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  const core = await startCore(config);
  process.stdout.write(
    `Boxdesk core listening on ${core.url} (data dir ${config.dataDir}; token in ${config.dataDir}/token)\n`,
  );
  process.stdout.write(`Published boxes: http://{box}--{project}.localhost:${core.proxyPort}\n`);
  if (config.uiDir) {
    // The token rides in the fragment, which browsers never send to a server; the page takes it and clears the address bar.
    const token = fs.readFileSync(path.join(config.dataDir, 'token'), 'utf8').trim();
    process.stdout.write(
      `UI: sign in at ${core.url}/#token=${encodeURIComponent(token)}\n    (or open ${core.url}/ and paste the token from ${path.join(config.dataDir, 'token')})\n`,
    );
  }
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    core.app.log.info({ signal }, 'shutting down');
    core.close().then(
      () => process.exit(0),
      (err) => {
        core.app.log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((err) => {
  process.stderr.write(`boxdesk: could not start: ${(err as Error).message}\n`);
  process.exit(1);
});
