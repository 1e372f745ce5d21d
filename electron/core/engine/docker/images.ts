import type Docker from 'dockerode';
import type { Readable } from 'node:stream';
import type { ImageInfo } from '../container-engine';
import { call, labelFilter, orNull, toEngineError } from './errors';

export async function inspectImage(docker: Docker, ref: string): Promise<ImageInfo | null> {
  const image = await orNull(() => docker.getImage(ref).inspect());
  return image ? { id: image.Id, sizeBytes: image.Size } : null;
}

export async function pullImage(docker: Docker, ref: string, onProgress: (line: string) => void): Promise<void> {
  const stream = await call(() => docker.pull(ref) as Promise<Readable>);
  await new Promise<void>((resolve, reject) => {
    docker.modem.followProgress(
      stream,
      (err: Error | null) => (err ? reject(toEngineError(err)) : resolve()),
      (event: { status?: string; id?: string; progress?: string; error?: string }) => {
        if (event.error) return;
        onProgress([event.id, event.status, event.progress].filter(Boolean).join(' '));
      },
    );
  });
}

export async function listImages(docker: Docker, labels: Record<string, string>): Promise<ImageInfo[]> {
  const images = await call(() => docker.listImages({ filters: { label: labelFilter(labels) } }));
  return images.map((i) => ({ id: i.Id, sizeBytes: i.Size }));
}

export async function removeImage(docker: Docker, id: string): Promise<void> {
  try {
    await docker.getImage(id).remove({ noprune: false });
  } catch (err) {
    const e = toEngineError(err);
    if (e.kind === 'not_found' || e.kind === 'conflict' || /being used|has dependent|unable to delete/i.test(e.message)) return;
    throw e;
  }
}
