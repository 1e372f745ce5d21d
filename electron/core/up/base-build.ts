import type { Readable } from 'node:stream';
import { BuildCacheTally } from '../../../shared/build-cache';
import { readNdjson } from '../../../shared/calls/byte-stream';
import { ApiError } from '../../../shared/errors';
import type { BaseBuild, BuildLogLine } from '../../../shared/schemas/builds';
import type { UpLine } from '../../../shared/schemas/up';
import type { BuildsPort } from '../builds/port';

/** A finished build of a box's base, and how much of it the engine took from its cache. */
export interface BuiltBase {
  build: BaseBuild;
  /** "base up-x built; 3 of 4 steps from the cache, run again from step 4/4 RUN make" */
  summary: string;
}

/**
 * Builds the base through builds/ and follows its log to its end, each line passed on as it
 * comes; the client going away (`signal`) cancels the build. Throws a 409 naming the failure.
 */
export async function buildBase(
  builds: BuildsPort,
  base: string,
  context: { tar: Readable; dockerfile: string; args: string[] },
  emit: (line: UpLine) => void,
  signal: AbortSignal,
): Promise<BuiltBase> {
  const started = await builds.start(base, context.tar, {
    dockerfile: context.dockerfile,
    ...(context.args.length ? { build_arg: context.args } : {}),
  });
  const cancel = () => void builds.cancel(base, started.id).catch(() => undefined);
  signal.addEventListener('abort', cancel, { once: true });
  const tally = new BuildCacheTally();
  try {
    const log = builds.log(base, started.id, true);
    for await (const line of readNdjson<BuildLogLine>(log as AsyncIterable<Uint8Array>)) {
      tally.see(line);
      if (line.step) emit({ type: 'build', step: line.step });
      else if (line.stream) emit({ type: 'build', stream: line.stream });
    }
  } finally {
    signal.removeEventListener('abort', cancel);
  }
  const build = builds.get(base, started.id);
  if (build.status !== 'done')
    throw new ApiError(
      'conflict',
      build.status === 'cancelled'
        ? `the build of base ${base} was cancelled`
        : `the build of base ${base} failed: ${build.error ?? 'no reason given'}`,
    );
  return { build, summary: `base ${base} built${tally.summary()}` };
}
