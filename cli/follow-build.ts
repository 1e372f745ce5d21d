import type { Readable } from 'node:stream';
import { BuildCacheTally } from '../shared/build-cache';
import { readNdjson } from '../shared/calls/byte-stream';
import type { BuildBaseOptions } from '../shared/calls/builds';
import type { BaseBuild, BuildLogLine } from '../shared/schemas/builds';
import type { Context } from './context';
import { prepareDrawing } from './progress';

/** A finished build, and how much of it the engine took from its cache ("; 3 of 4 steps from the cache, …"). */
export interface BuildOutcome {
  build: BaseBuild;
  reuse: string;
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
  const tally = new BuildCacheTally();
  try {
    for await (const line of readNdjson<BuildLogLine>(res.body as AsyncIterable<Uint8Array>)) {
      tally.see(line);
      if (line.step) {
        if (spinner) spinner.text = `building ${name}: ${line.step}`;
        write(`Step ${line.step}\n`);
      } else if (line.stream?.trim()) write(line.stream.endsWith('\n') ? line.stream : `${line.stream}\n`);
    }
  } finally {
    spinner?.stop();
  }
  return { build: await ctx.client.getBaseBuild(name, started.id), reuse: tally.summary() };
}

/** The line `box base build` ends a build with on stderr. */
export function buildSummary(name: string, { build, reuse }: BuildOutcome): string {
  if (build.status === 'failed') return `box: the build of base ${name} failed: ${build.error ?? 'no reason given'}\n`;
  if (build.status === 'cancelled') return `box: the build of base ${name} was cancelled\n`;
  return `base ${name} built${reuse}\n`;
}
