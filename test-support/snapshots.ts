import assert from 'node:assert/strict';
import type { Box } from '../shared/schemas/box';
import type { Snapshot } from '../shared/schemas/snapshots';
import type { Base } from '../shared/schemas/system';
import { containersOfBox, docker } from './docker';
import { withTestCore, type TestCore, type TestCoreOptions } from './test-core';

type Api = (method: string, pathname: string, body?: unknown, headers?: Record<string, string>) => Promise<Response>;

/** Small helpers over the snapshot routes for the integration tests. */
export function snapshotApi(api: Api, project: string) {
  const boxes = `/v1/projects/${project}/boxes`;
  const expect = async <T>(res: Response, status: number): Promise<T> => {
    const text = await res.text();
    assert.equal(res.status, status, text);
    return (text ? JSON.parse(text) : undefined) as T;
  };
  return {
    boxes,
    expect,
    create: async (name: string, extra: Record<string, unknown> = {}) =>
      expect<Box>(await api('POST', boxes, { name, ...extra }), 201),
    snapshot: async (box: string, name?: string) =>
      expect<Snapshot>(await api('POST', `${boxes}/${box}/snapshots`, name ? { name } : {}), 201),
    restore: async (box: string, snapshotId: string) =>
      expect<Box>(await api('POST', `${boxes}/${box}/restore`, { snapshot_id: snapshotId }), 200),
    sh: async (box: string, script: string) => {
      const r = await expect<{ exit_code: number; stdout: string; stderr: string }>(
        await api('POST', `${boxes}/${box}/exec`, { command: ['sh', '-c', script] }),
        200,
      );
      return r;
    },
    read: async (box: string, path: string) => {
      const r = await expect<{ exit_code: number; stdout: string }>(
        await api('POST', `${boxes}/${box}/exec`, { command: ['cat', path] }),
        200,
      );
      return r.exit_code === 0 ? r.stdout : null;
    },
    remove: async (box: string) => api('DELETE', `${boxes}/${box}`).then((r) => r.arrayBuffer()),
  };
}

export type SnapshotApi = ReturnType<typeof snapshotApi>;

/**
 * A test file's in-process core, with the snapshot helpers on `project`, handed to `use` before the
 * tests. After them it removes the project's boxes, the bases made (one made from a snapshot holds
 * it), then the snapshots newest first (a parent goes after its children), and closes the core.
 */
export function withSnapshotCore(
  project: string,
  use: (t: TestCore, s: SnapshotApi) => void,
  options: TestCoreOptions = {},
): void {
  let s: SnapshotApi;
  withTestCore(
    (t) => {
      s = snapshotApi(t.api, project);
      use(t, s);
    },
    async (t) => {
      const list = async <T>(pathname: string) =>
        ((await (await t.api('GET', pathname)).json()) as { items: T[] }).items;
      for (const b of await list<Box>(`${s.boxes}?limit=500`)) await s.remove(b.name);
      for (const b of await list<Base>('/v1/bases'))
        if (b.name !== 'default') await t.api('DELETE', `/v1/bases/${b.name}`);
      const snaps = await list<Snapshot>(`/v1/projects/${project}/snapshots`);
      for (const snap of snaps.reverse()) await t.api('DELETE', `/v1/projects/${project}/snapshots/${snap.id}`);
    },
    options,
  );
}

// The engine refuses a container deeper than 125 layers; the core flattens a
// chain into one layer once a commit would pass MAX_LAYERS (100). The deep-chain
// tests' cores flatten past FLATTEN_AT instead (the same code, a lower bound:
// each step is a real commit, and 120 of them cost minutes), and their chains go
// DEEP_CHAIN deep, half as far again: the chain is flattened once and grows again on top.
export const FLATTEN_AT = 12;
export const DEEP_CHAIN = 18;

/** How many layers the image of the box's container has. */
export async function layersOf(boxId: string): Promise<number> {
  const [c] = await containersOfBox(boxId);
  const image = (await docker.getContainer(c!.Id).inspect()).Image;
  return (await docker.getImage(image).inspect()).RootFS.Layers?.length ?? 0;
}

/** Images carrying this core's instance label (everything it committed or imported). */
export async function imagesOfInstance(instance: string): Promise<{ Id: string; Labels: Record<string, string> }[]> {
  return (await docker.listImages({ filters: { label: [`boxdesk.instance=${instance}`] } })) as {
    Id: string;
    Labels: Record<string, string>;
  }[];
}

/** The static busybox binary of the test image, read from a container made (and removed) for it. */
export async function busyboxBinary(image: string): Promise<Buffer> {
  const { extract } = await import('tar-stream');
  const container = await docker.createContainer({
    Image: image,
    Cmd: ['true'],
    Labels: { 'boxdesk.test': 'busybox-source' },
  });
  try {
    const archive = (await container.getArchive({ path: '/bin/busybox' })) as NodeJS.ReadableStream;
    const ex = extract();
    let binary: Buffer | null = null;
    ex.on('entry', (header, stream, next) => {
      const chunks: Buffer[] = [];
      stream.on('data', (c) => chunks.push(c as Buffer));
      stream.on('end', () => {
        if (header.type === 'file') binary = Buffer.concat(chunks);
        next();
      });
    });
    await new Promise<void>((resolve, reject) => {
      ex.on('finish', resolve);
      ex.on('error', reject);
      archive.pipe(ex as unknown as NodeJS.WritableStream);
    });
    if (!binary) throw new Error('no busybox in the test image');
    return binary;
  } finally {
    await container.remove({ force: true });
  }
}

/** A minimal root filesystem as a tar: busybox, the applets a box needs, and one marker file. */
export async function tinyRootfsTar(busybox: Buffer, marker: string): Promise<Buffer> {
  const { pack } = await import('tar-stream');
  const p = pack();
  const chunks: Buffer[] = [];
  p.on('data', (c) => chunks.push(c as Buffer));
  const ended = new Promise<void>((resolve) => p.on('end', () => resolve()));
  p.entry({ name: 'bin/', type: 'directory', mode: 0o755 });
  p.entry({ name: 'bin/busybox', mode: 0o755 }, busybox);
  for (const applet of ['sh', 'sleep', 'cat', 'echo', 'true', 'ls', 'rm', 'mkdir'])
    p.entry({ name: `bin/${applet}`, type: 'symlink', linkname: '/bin/busybox' });
  p.entry({ name: 'etc/', type: 'directory', mode: 0o755 });
  p.entry({ name: 'etc/marker', mode: 0o644 }, marker);
  p.entry({ name: 'tmp/', type: 'directory', mode: 0o1777 });
  p.entry({ name: 'root/', type: 'directory', mode: 0o700 });
  p.finalize();
  await ended;
  return Buffer.concat(chunks);
}
