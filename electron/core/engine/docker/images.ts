import type Docker from 'dockerode';
import type { Readable } from 'node:stream';
import type { ImageConfig, ImageDetails, ImageImportOptions, ImageInfo } from '../container-engine';
import { EngineError } from '../container-engine';
import { call, hasLabels, labelFilter, orNull, toEngineError } from './errors';
import { isPodman } from './flavor';
import { asImageId } from './podman-answers';

export async function inspectImage(docker: Docker, ref: string): Promise<ImageDetails | null> {
  const image = await orNull(() => docker.getImage(ref).inspect());
  if (!image) return null;
  const c = image.Config ?? ({} as Partial<Docker.ImageInspectInfo['Config']>);
  return {
    id: image.Id,
    sizeBytes: image.Size,
    labels: c.Labels ?? {},
    layers: image.RootFS?.Layers?.length ?? 0,
    parentId: image.Parent ? asImageId(image.Parent) : null,
    config: {
      cmd: c.Cmd ?? null,
      entrypoint: (c.Entrypoint as string[] | null | undefined) ?? null,
      env: c.Env ?? [],
      workingDir: c.WorkingDir ?? '',
      user: c.User ?? '',
    },
  };
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
  // Podman matches no image with two label filters: it gets the first, the rest is filtered here.
  const filter = labelFilter(labels);
  const asked = (await isPodman(docker)) ? filter.slice(0, 1) : filter;
  const images = await call(() => docker.listImages({ filters: { label: asked } }));
  return images
    .filter((i) => hasLabels(i.Labels, labels))
    .map((i) => ({ id: i.Id, sizeBytes: i.Size, labels: i.Labels ?? {} }));
}

export async function removeImage(docker: Docker, id: string): Promise<void> {
  try {
    await docker.getImage(id).remove({ noprune: false });
  } catch (err) {
    const e = toEngineError(err);
    if (e.kind === 'not_found' || e.kind === 'conflict' || /being used|has dependent|unable to delete/i.test(e.message))
      return;
    throw e;
  }
}

/** Dockerfile instructions the engine applies to an imported image. */
function importChanges(options: ImageImportOptions): string[] {
  const changes = Object.entries(options.labels).map(([k, v]) => `LABEL ${k}=${JSON.stringify(v)}`);
  const config: ImageConfig | undefined = options.config;
  if (!config) return changes;
  for (const e of config.env) {
    const i = e.indexOf('=');
    if (i > 0) changes.push(`ENV ${e.slice(0, i)}=${JSON.stringify(e.slice(i + 1))}`);
  }
  if (config.cmd) changes.push(`CMD ${JSON.stringify(config.cmd)}`);
  if (config.entrypoint) changes.push(`ENTRYPOINT ${JSON.stringify(config.entrypoint)}`);
  if (config.workingDir) changes.push(`WORKDIR ${config.workingDir}`);
  if (config.user) changes.push(`USER ${config.user}`);
  return changes;
}

export async function importImage(docker: Docker, tar: Readable, options: ImageImportOptions): Promise<string> {
  // The engine's words for an archive it cannot read: the caller sent a bad tar, not an engine failure.
  const classify = (err: unknown) => {
    const e = toEngineError(err);
    return /processing tar|archive\/tar|unexpected EOF|invalid tar/i.test(e.message)
      ? new EngineError('invalid', `not a readable tar archive: ${e.message}`)
      : e;
  };
  let stream: Readable;
  try {
    stream = (await docker.importImage(tar, { changes: importChanges(options) } as object)) as Readable;
  } catch (err) {
    throw classify(err);
  }
  let imageId: string | null = null;
  await new Promise<void>((resolve, reject) => {
    docker.modem.followProgress(
      stream,
      (err: Error | null) => (err ? reject(classify(err)) : resolve()),
      (event: { status?: string; error?: string }) => {
        if (event.status && /^sha256:[0-9a-f]{64}$/.test(event.status)) imageId = event.status;
      },
    );
  });
  if (!imageId)
    throw new EngineError('invalid', 'the engine made no image from the archive (is it a tar of a root filesystem?)');
  return imageId;
}

/** The image (and what it is made of) as the engine's image archive, to load into another engine. */
export async function saveImage(docker: Docker, id: string): Promise<Readable> {
  return call(() => docker.getImage(id).get() as Promise<Readable>);
}

/** Loads an image archive from saveImage; the image keeps its id. */
export async function loadImage(docker: Docker, tar: Readable): Promise<void> {
  const res = await call(() => docker.loadImage(tar) as Promise<Readable>);
  await new Promise<void>((resolve, reject) => {
    let failure = '';
    res.on('data', (chunk: Buffer) => {
      const error = /"error":"([^"]*)"/.exec(chunk.toString('utf8'));
      if (error) failure = error[1]!;
    });
    res.on('end', () => (failure ? reject(new EngineError('failed', failure)) : resolve()));
    res.on('error', (err) => reject(toEngineError(err)));
  });
}
