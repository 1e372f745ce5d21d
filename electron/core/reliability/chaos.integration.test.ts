import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { boxCommands, sequenceOf, withModelCore } from '../../../test-support/box-commands';
import { runSequence, type Real } from '../../../test-support/box-model';
import { crashCommands } from '../../../test-support/crash-command';

// Chaos: the model-based sequences with kill -9 of the real core process at random points
// (a mutation in flight), each followed by a restart on the same data dir. After every
// step — and so after every restart — nothing acknowledged is lost, nothing is stuck in a
// transient status, there is no orphan container, and model, API, engine and SQLite agree.

const SEED = Number(process.env.CHAOS_SEED ?? Math.floor(Math.random() * 2 ** 31));
// Each kill costs a core restart (some 3 s here): three sequences in npm test, more with CHAOS_RUNS.
const SEQUENCES = Number(process.env.CHAOS_RUNS ?? 3);
const MIN_STEPS = 4;
const MAX_STEPS = 8;

const m = withModelCore(
  (f) =>
    `chaos: ${f.sequences} sequences, ${f.steps} steps, ${f.kills} kills (seed ${SEED}; reproduce: CHAOS_SEED=${SEED})`,
);

test(`kill -9 of the core mid-operation loses nothing acknowledged and leaves nothing stuck (seed ${SEED})`, async () => {
  console.log(`chaos seed ${SEED} (reproduce: CHAOS_SEED=${SEED})`);
  let run = 0;
  // As many crash entries as plain ones: about half the steps are kills.
  const plain = boxCommands(m.routes);
  const commands = [...plain, ...plain.map(() => crashCommands())];
  await fc.assert(
    fc.asyncProperty(sequenceOf(commands, MIN_STEPS, MAX_STEPS), fc.context(), async (cmds, ctx) => {
      const real: Real = {
        core: m.core,
        project: `chaos-${SEED % 100000}-${run++}`,
        restart: async () => {
          await m.core.kill();
          real.core = await m.restart();
          ctx.log(`restarted the core (${real.kills + 1})`);
        },
        kills: 0,
        steps: 0,
      };
      await runSequence(real, cmds, m.figures);
    }),
    { seed: SEED, numRuns: SEQUENCES, endOnFailure: true, includeErrorInReport: true },
  );
  assert.ok(m.figures.kills > 0, 'the sequences killed the core at least once');
});
