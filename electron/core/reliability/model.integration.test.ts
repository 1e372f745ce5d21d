import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { api, startCoreProcess, tempDataDir, type CoreProcess } from '../../../test-support/core-process';
import { boxCommands, context, sequenceOf } from '../../../test-support/box-commands';
import type { Model, Real } from '../../../test-support/box-model';
import { instanceIdOf, removeInstanceLeftovers } from '../../../test-support/reliability';
import fs from 'node:fs';

// Model-based: random sequences of create (and fork) / stop / resume / exec / update /
// delete — and snapshot / restore once the served document has those routes — run against
// a real core process and a model of the boxes. After every step the model, the API (list
// and get), the engine's labelled containers and the SQLite rows must agree.

const SEED = Number(process.env.MODEL_SEED ?? Math.floor(Math.random() * 2 ** 31));
const SEQUENCES = Number(process.env.MODEL_RUNS ?? 15);
const MIN_STEPS = 4;
const MAX_STEPS = 8;

const dataDir = tempDataDir();
let core: CoreProcess;
let routes: Set<string>;
const figures = { sequences: 0, steps: 0 };

before(async () => {
  core = await startCoreProcess({ dataDir, args: ['--rate-limit', '0'] });
  context.instance = instanceIdOf(dataDir);
  routes = new Set(
    Object.keys(((await (await api(core, 'GET', '/v1/openapi.json')).json()) as { paths: object }).paths),
  );
});

after(async () => {
  console.log(
    `model: ${figures.sequences} sequences, ${figures.steps} steps (seed ${SEED}; reproduce: MODEL_SEED=${SEED})`,
  );
  await core?.stop();
  if (context.instance) await removeInstanceLeftovers(context.instance);
  fs.rmSync(dataDir, { recursive: true, force: true });
});

test(`random box operation sequences keep model, API, engine and SQLite in agreement (seed ${SEED})`, async () => {
  console.log(`model seed ${SEED} (reproduce: MODEL_SEED=${SEED})`);
  let run = 0;
  await fc.assert(
    fc.asyncProperty(sequenceOf(boxCommands(routes), MIN_STEPS, MAX_STEPS), async (commands) => {
      const real: Real = {
        core,
        project: `model-${SEED % 100000}-${run++}`,
        restart: () => Promise.reject(new Error('no restarts in the model test')),
        kills: 0,
        steps: 0,
      };
      try {
        await fc.asyncModelRun(
          () => ({ model: { boxes: new Map(), snapshots: new Map() } satisfies Model, real }),
          commands,
        );
      } finally {
        figures.sequences++;
        figures.steps += real.steps;
      }
    }),
    { seed: SEED, numRuns: SEQUENCES, endOnFailure: true, includeErrorInReport: true },
  );
});
