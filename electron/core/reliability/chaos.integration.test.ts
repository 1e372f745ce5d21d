import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { boxCommands, context, sequenceOf } from '../../../test-support/box-commands';
import type { Model, Real } from '../../../test-support/box-model';
import { api, startCoreProcess, tempDataDir, type CoreProcess } from '../../../test-support/core-process';
import { crashCommands } from '../../../test-support/crash-command';
import { instanceIdOf, removeInstanceLeftovers } from '../../../test-support/reliability';

// Chaos: the model-based sequences with kill -9 of the real core process at random points
// (a mutation in flight), each followed by a restart on the same data dir. After every
// step — and so after every restart — nothing acknowledged is lost, nothing is stuck in a
// transient status, there is no orphan container, and model, API, engine and SQLite agree.

const SEED = Number(process.env.CHAOS_SEED ?? Math.floor(Math.random() * 2 ** 31));
// Each kill costs a core restart (some 3 s here): three sequences in npm test, more with CHAOS_RUNS.
const SEQUENCES = Number(process.env.CHAOS_RUNS ?? 3);
const MIN_STEPS = 4;
const MAX_STEPS = 8;

const dataDir = tempDataDir();
let core: CoreProcess;
let routes: Set<string>;
const figures = { sequences: 0, steps: 0, kills: 0 };

before(async () => {
  core = await startCoreProcess({ dataDir, args: ['--rate-limit', '0'] });
  context.instance = instanceIdOf(dataDir);
  routes = new Set(
    Object.keys(((await (await api(core, 'GET', '/v1/openapi.json')).json()) as { paths: object }).paths),
  );
});

after(async () => {
  console.log(
    `chaos: ${figures.sequences} sequences, ${figures.steps} steps, ${figures.kills} kills (seed ${SEED}; reproduce: CHAOS_SEED=${SEED})`,
  );
  await core?.stop();
  if (context.instance) await removeInstanceLeftovers(context.instance);
  fs.rmSync(dataDir, { recursive: true, force: true });
});

test(`kill -9 of the core mid-operation loses nothing acknowledged and leaves nothing stuck (seed ${SEED})`, async () => {
  console.log(`chaos seed ${SEED} (reproduce: CHAOS_SEED=${SEED})`);
  let run = 0;
  // As many crash entries as plain ones: about half the steps are kills.
  const plain = boxCommands(routes);
  const commands = [...plain, ...plain.map(() => crashCommands())];
  await fc.assert(
    fc.asyncProperty(sequenceOf(commands, MIN_STEPS, MAX_STEPS), fc.context(), async (cmds, ctx) => {
      const real: Real = {
        core,
        project: `chaos-${SEED % 100000}-${run++}`,
        restart: async () => {
          await core.kill();
          core = await startCoreProcess({ dataDir, args: ['--rate-limit', '0'] });
          real.core = core;
          ctx.log(`restarted the core (${real.kills + 1})`);
        },
        kills: 0,
        steps: 0,
      };
      try {
        await fc.asyncModelRun(
          () => ({ model: { boxes: new Map(), snapshots: new Map() } satisfies Model, real }),
          cmds,
        );
      } finally {
        figures.sequences++;
        figures.steps += real.steps;
        figures.kills += real.kills;
      }
    }),
    { seed: SEED, numRuns: SEQUENCES, endOnFailure: true, includeErrorInReport: true },
  );
  assert.ok(figures.kills > 0, 'the sequences killed the core at least once');
});
