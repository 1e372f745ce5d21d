import { spawn } from 'node:child_process';
import { BOX_BIN, cliEnv } from '../../test-support/cli-runner';
import { ratioResult, type ScenarioResult } from '../report';
import { alternate, progress } from '../stats';
import type { BenchContext, BenchScenario } from './context';

const WARMUP = 2;
const TARGET = 4;

/** Wall time of one process, from spawn to exit; fails on a non-zero status. */
function timeProcess(args: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(process.execPath, args, { env: cliEnv(), stdio: 'ignore' });
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve(performance.now() - start) : reject(new Error(`${args.join(' ')} exited ${code}`)),
    );
  });
}

/** `box --help` (cli/bin/box.mjs, so the bundle when it is fresh) against a bare `node -e 0`. */
async function run(ctx: BenchContext): Promise<ScenarioResult> {
  const box = () => timeProcess([BOX_BIN, '--help']);
  const node = () => timeProcess(['-e', '0']);
  progress(`CLI start-up: warming up, then ${ctx.n} runs each of box --help and node -e 0, alternating`);
  await alternate(WARMUP, box, node);
  const runs = await alternate(ctx.n, box, node);
  return ratioResult('CLI start-up: box --help vs node -e 0', runs, TARGET, [
    '"raw" is a bare `node -e 0`; run after `npm run build` (else box runs its sources through tsx)',
  ]);
}

export const cliStartup: BenchScenario = { name: 'cli-startup', run };
