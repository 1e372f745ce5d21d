import type { Readable } from 'node:stream';
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
  let steps = 0;
  let cached = 0;
  let firstRun: string | null = null;
  // A step that ran rather than came from the cache (FROM steps do neither).
  let step: { label: string; fromCache: boolean } | null = null;
  const closeStep = () => {
    if (step && !step.fromCache && !/^\S+ FROM /i.test(step.label)) firstRun ??= step.label;
  };
  try {
    const log = builds.log(base, started.id, true);
    for await (const line of readNdjson<BuildLogLine>(log as AsyncIterable<Uint8Array>)) {
      if (line.step) {
        closeStep();
        step = { label: line.step, fromCache: false };
        steps++;
        emit({ type: 'build', step: line.step });
      } else if (line.stream) {
        if (/^\s*---> Using cache/.test(line.stream) && step && !step.fromCache) {
          step.fromCache = true;
          cached++;
        }
        emit({ type: 'build', stream: line.stream });
      }
    }
  } finally {
    signal.removeEventListener('abort', cancel);
  }
  closeStep();
  const build = builds.get(base, started.id);
  if (build.status !== 'done')
    throw new ApiError(
      'conflict',
      build.status === 'cancelled'
        ? `the build of base ${base} was cancelled`
        : `the build of base ${base} failed: ${build.error ?? 'no reason given'}`,
    );
  const reuse = !steps
    ? ''
    : firstRun
      ? `; ${cached} of ${steps} steps from the cache, run again from step ${firstRun}`
      : `; ${cached} of ${steps} steps from the cache, nothing changed`;
  return { build, summary: `base ${base} built${reuse}` };
}
