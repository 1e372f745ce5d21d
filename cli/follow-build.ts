import type { Readable } from 'node:stream';
import { readNdjson } from '../shared/calls/byte-stream';
import type { BuildBaseOptions } from '../shared/calls/builds';
import type { BaseBuild, BuildLogLine } from '../shared/schemas/builds';
import type { Context } from './context';
import { prepareDrawing } from './progress';

/** A finished build, how many of its steps the engine took from its cache, and the first it ran again. */
export interface BuildOutcome {
  build: BaseBuild;
  steps: number;
  cached: number;
  firstRun: string | null;
}

/**
 * Sends the context, starts the build and streams its log to stderr as it comes; on a terminal a
 * spinner shows the current step between lines. Answers once the build has ended.
 */
export async function buildAndFollow(
  ctx: Context,
  name: string,
  context: Readable,
  options: BuildBaseOptions,
): Promise<BuildOutcome> {
  const started = await ctx.client.buildBase(name, context, options);
  const res = await ctx.client.baseBuildLog(name, started.id, { follow: true });
  const lib = await prepareDrawing(ctx.stderr);
  const spinner = lib?.ora({ text: `building ${name}`, stream: ctx.stderr, discardStdin: false, isEnabled: true });
  spinner?.start();
  const write = (text: string) => {
    spinner?.clear();
    ctx.stderr.write(text);
    spinner?.render();
  };
  let steps = 0;
  let cached = 0;
  let firstRun: string | null = null;
  // A step that ran rather than came from the cache (FROM steps do neither).
  let step: { label: string; fromCache: boolean } | null = null;
  const closeStep = () => {
    if (step && !step.fromCache && !/^\S+ FROM /i.test(step.label)) firstRun ??= step.label;
  };
  try {
    for await (const line of readNdjson<BuildLogLine>(res.body as AsyncIterable<Uint8Array>)) {
      if (line.step) {
        closeStep();
        step = { label: line.step, fromCache: false };
        steps++;
        if (spinner) spinner.text = `building ${name}: ${line.step}`;
        write(`Step ${line.step}\n`);
      } else if (line.stream) {
        if (/^\s*---> Using cache/.test(line.stream) && step) {
          step.fromCache = true;
          cached++;
        }
        if (line.stream.trim()) write(line.stream.endsWith('\n') ? line.stream : `${line.stream}\n`);
      }
    }
  } finally {
    spinner?.stop();
  }
  closeStep();
  return { build: await ctx.client.getBaseBuild(name, started.id), steps, cached, firstRun };
}

/** The line `box base build` and `box up` end a build with on stderr. */
export function buildSummary(name: string, outcome: BuildOutcome): string {
  const { build, steps, cached, firstRun } = outcome;
  if (build.status === 'failed') return `box: the build of base ${name} failed: ${build.error ?? 'no reason given'}\n`;
  if (build.status === 'cancelled') return `box: the build of base ${name} was cancelled\n`;
  const reuse = !steps
    ? ''
    : firstRun
      ? `; ${cached} of ${steps} steps from the cache, run again from step ${firstRun}`
      : `; ${cached} of ${steps} steps from the cache, nothing changed`;
  return `base ${name} built${reuse}\n`;
}
