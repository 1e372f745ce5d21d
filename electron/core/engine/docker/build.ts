import type Docker from 'dockerode';
import type { Readable } from 'node:stream';
import { EngineError, type BuildLine, type BuildOptions } from '../container-engine';
import { call, toEngineError } from './errors';

/** The classic builder's "Step 2/4 : RUN make" line. */
const STEP = /^Step (\d+\/\d+) : (.*)$/s;

interface BuildMessage {
  stream?: string;
  status?: string;
  error?: string;
  errorDetail?: { message?: string };
  aux?: { ID?: string };
}

/**
 * Builds an image with the engine's own builder (POST /build without `version=2`: Docker's
 * classic builder, which resolves FROM from the images it has, with no registry, and keeps its
 * layer cache). Intermediate containers are removed whatever happens (forcerm); aborting `signal`
 * drops the connection, which the engine takes as a cancel.
 */
export async function buildImage(
  docker: Docker,
  context: Readable,
  options: BuildOptions,
  onLine: (line: BuildLine) => void,
  signal: AbortSignal,
): Promise<string> {
  const stream = await call(
    () =>
      docker.buildImage(
        context as unknown as NodeJS.ReadableStream,
        {
          dockerfile: options.dockerfile,
          buildargs: options.buildArgs,
          ...(options.target ? { target: options.target } : {}),
          labels: options.labels,
          rm: true,
          forcerm: true,
          abortSignal: signal,
        } as Docker.ImageBuildOptions,
      ) as Promise<Readable>,
  );
  let imageId: string | null = null;
  let failure: string | null = null;
  // The classic builder applies each build label as a step of its own after the Dockerfile's:
  // those are the driver's, not the user's, so they are left out and the steps counted without them.
  const hidden = Object.keys(options.labels).length;
  let inHidden = false;
  await new Promise<void>((resolve, reject) => {
    signal.addEventListener('abort', () => {
      stream.destroy();
      reject(new EngineError('conflict', 'the build was cancelled'));
    });
    docker.modem.followProgress(
      stream,
      (err: Error | null) => (err && !signal.aborted ? reject(toEngineError(err)) : resolve()),
      (message: BuildMessage) => {
        if (message.aux?.ID) imageId = message.aux.ID;
        if (message.error || message.errorDetail) {
          failure = message.errorDetail?.message ?? message.error ?? 'the build failed';
          onLine({ error: failure });
          return;
        }
        const text = message.stream ?? message.status;
        if (!text) return;
        const step = STEP.exec(text.trim());
        if (step) {
          const [n, total] = step[1]!.split('/').map(Number) as [number, number];
          inHidden = n > total - hidden;
          if (!inHidden) onLine({ step: `${n}/${total - hidden} ${step[2]}` });
          return;
        }
        if (!inHidden) onLine({ stream: text });
      },
    );
  });
  if (signal.aborted) {
    // A cancel that came as the engine finished: the image it made goes too.
    if (imageId)
      await docker
        .getImage(imageId)
        .remove()
        .catch(() => undefined);
    throw new EngineError('conflict', 'the build was cancelled');
  }
  if (failure) throw new EngineError('invalid', failure);
  if (!imageId) throw new EngineError('failed', 'the engine finished the build without naming an image');
  return imageId;
}
