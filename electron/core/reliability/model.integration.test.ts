import { test } from 'node:test';
import fc from 'fast-check';
import { boxCommands, sequenceOf, withModelCore } from '../../../test-support/box-commands';
import { runSequence, type Real } from '../../../test-support/box-model';

// Model-based: random sequences of create (and fork) / stop / resume / exec / update /
// delete — and snapshot / restore once the served document has those routes — run against
// a real core process and a model of the boxes. After every step the model, the API (list
// and get), the engine's labelled containers and the SQLite rows must agree.

const SEED = Number(process.env.MODEL_SEED ?? Math.floor(Math.random() * 2 ** 31));
const SEQUENCES = Number(process.env.MODEL_RUNS ?? 15);
const MIN_STEPS = 4;
const MAX_STEPS = 8;

const m = withModelCore(
  (f) => `model: ${f.sequences} sequences, ${f.steps} steps (seed ${SEED}; reproduce: MODEL_SEED=${SEED})`,
);

test(`random box operation sequences keep model, API, engine and SQLite in agreement (seed ${SEED})`, async () => {
  console.log(`model seed ${SEED} (reproduce: MODEL_SEED=${SEED})`);
  let run = 0;
  await fc.assert(
    fc.asyncProperty(sequenceOf(boxCommands(m.routes), MIN_STEPS, MAX_STEPS), async (commands) => {
      const real: Real = {
        core: m.core,
        project: `model-${SEED % 100000}-${run++}`,
        restart: () => Promise.reject(new Error('no restarts in the model test')),
        kills: 0,
        steps: 0,
      };
      await runSequence(real, commands, m.figures);
    }),
    { seed: SEED, numRuns: SEQUENCES, endOnFailure: true, includeErrorInReport: true },
  );
});
