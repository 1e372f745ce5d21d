import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip, constants as zlib } from 'node:zlib';
import { api } from '../../test-support/core-process';
import { ratioResult, type ScenarioResult } from '../report';
import { BENCH_LABEL, docker } from '../raw-engine';
import { alternate, progress, timed } from '../stats';
import {
  deleteBox,
  execInBox,
  expectJson,
  positiveIntFromEnv,
  sleep,
  type BenchContext,
  type BenchScenario,
} from './context';

const TARGET = 1.2;
const SIZES_MB = [10, 200];

/** A helper container on the raw engine with these volume mounts, removed afterwards. */
async function rawHelper<T>(
  image: string,
  mounts: { volume: string; path: string; ro: boolean }[],
  cmd: string[] | null,
  work: (id: string) => Promise<T>,
): Promise<T> {
  const c = await docker.createContainer({
    Image: image,
    Entrypoint: [],
    Cmd: cmd ?? ['/bin/true'],
    Labels: { [BENCH_LABEL]: '1' },
    HostConfig: {
      Mounts: mounts.map((m) => ({ Type: 'volume' as const, Source: m.volume, Target: m.path, ReadOnly: m.ro })),
    },
  });
  try {
    return await work(c.id);
  } finally {
    await c.remove({ force: true }).catch(() => undefined);
  }
}

/** Raw snapshot: a new volume filled by `cp -a` in a container, as the core does (without the reflink probe and du). */
async function rawSnapshot(image: string, source: string, target: string): Promise<void> {
  await docker.createVolume({ Name: target, Labels: { [BENCH_LABEL]: '1' } });
  await rawHelper(
    image,
    [
      { volume: source, path: '/src', ro: true },
      { volume: target, path: '/dst', ro: false },
    ],
    ['/bin/sh', '-c', 'cp -a /src/. /dst/'],
    async (id) => {
      await docker.getContainer(id).start();
      const { StatusCode } = (await docker.getContainer(id).wait()) as { StatusCode: number };
      if (StatusCode !== 0) throw new Error(`raw cp exited ${StatusCode}`);
    },
  );
}

/** Raw backup: the engine's tar of the volume through a (never started) container, gzipped (level 1) and hashed to a file. */
async function rawBackup(image: string, source: string, file: string): Promise<void> {
  await rawHelper(image, [{ volume: source, path: '/v', ro: true }], null, async (id) => {
    const tar = (await docker.getContainer(id).getArchive({ path: '/v/.' })) as NodeJS.ReadableStream;
    const hash = createHash('sha256');
    const tap = new Transform({ transform: (chunk: Buffer, _e, done) => (hash.update(chunk), done(null, chunk)) });
    await pipeline(tar, createGzip({ level: zlib.Z_BEST_SPEED }), tap, fs.createWriteStream(file));
  });
}

/** A volume of `mb` MB filled through a box (deleted after, so neither side has to pause anything); its engine name. */
async function filledVolume(ctx: BenchContext, name: string, mb: number): Promise<string> {
  const P = `/v1/projects/${ctx.project}`;
  const vol = await expectJson<{ id: string }>(
    await api(ctx.core, 'POST', `${P}/volumes`, { name }),
    201,
    'create volume',
  );
  const box = `filler${mb}`;
  ctx.boxes.add(box);
  const res = await api(ctx.core, 'POST', `${P}/boxes`, { name: box, data_mounts: [{ name, path: '/data' }] });
  await expectJson(res, 201, 'create box');
  await execInBox(
    ctx,
    box,
    ['sh', '-c', `for i in $(seq 1 ${mb / 10}); do head -c 10485760 /dev/urandom > /data/f$i; done; sync`],
    300,
  );
  await deleteBox(ctx, box);
  return (await docker.listVolumes({ filters: { label: [`boxdesk.id=${vol.id}`] } })).Volumes[0]!.Name;
}

/** Volume snapshots through the core against create volume + cp -a on the raw engine. */
function snapshotRuns(ctx: BenchContext, n: number, name: string, engineName: string, mb: number) {
  const P = `/v1/projects/${ctx.project}`;
  return alternate(
    n,
    async () => {
      const { ms, value } = await timed(() =>
        api(ctx.core, 'POST', `${P}/volumes/${name}/snapshots`).then((r) =>
          expectJson<{ id: string }>(r, 201, 'snapshot'),
        ),
      );
      await api(ctx.core, 'DELETE', `${P}/volumes/${name}/snapshots/${value.id}`).then((r) => r.arrayBuffer());
      return ms;
    },
    async (i) => {
      const target = `boxdesk-bench-vsnap-${mb}-${i}-${Date.now().toString(36)}`;
      const { ms } = await timed(() => rawSnapshot(ctx.image, engineName, target));
      await docker
        .getVolume(target)
        .remove()
        .catch(() => undefined);
      return ms;
    },
  );
}

/** A backup through the core until it is done (polled every 25 ms). */
async function coreBackup(ctx: BenchContext, name: string): Promise<void> {
  const V = `/v1/projects/${ctx.project}/volumes/${name}`;
  const b = await expectJson<{ id: string }>(await api(ctx.core, 'POST', `${V}/backups`), 202, 'backup');
  for (;;) {
    const res = await api(ctx.core, 'GET', `${V}/backups/${b.id}`);
    const s = await expectJson<{ status: string; reason: string | null }>(res, 200, 'backup status');
    if (s.status === 'failed') throw new Error(`backup failed: ${s.reason}`);
    if (s.status === 'done') return;
    await sleep(25);
  }
}

/** Volume snapshot and backup at 10 and 200 MB, beside the same work done on the raw engine. */
async function run(ctx: BenchContext): Promise<ScenarioResult[]> {
  const n = positiveIntFromEnv('BENCH_VOLUME_N', 3);
  const results: ScenarioResult[] = [];
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'boxdesk-bench-vol-'));
  try {
    for (const mb of SIZES_MB) {
      const name = `vol${mb}`;
      progress(`volume ${mb} MB: filling it through a box`);
      const engineName = await filledVolume(ctx, name, mb);
      const snaps = await snapshotRuns(ctx, n, name, engineName, mb);
      results.push(
        ratioResult(`volume snapshot ${mb} MB`, snaps, TARGET, ['raw: create volume + cp -a in a container']),
      );
      const backups = await alternate(
        n,
        async () => (await timed(() => coreBackup(ctx, name))).ms,
        async (i) => {
          const file = path.join(tmp, `raw-${mb}-${i}.tar.gz`);
          const { ms } = await timed(() => rawBackup(ctx.image, engineName, file));
          fs.rmSync(file, { force: true });
          return ms;
        },
      );
      results.push(
        ratioResult(`volume backup ${mb} MB`, backups, TARGET, [
          'raw: the engine tar of the volume through a container, gzip -1 + sha256 to a file; ours polled every 25 ms',
        ]),
      );
      await api(ctx.core, 'DELETE', `/v1/projects/${ctx.project}/volumes/${name}`).then((r) => r.arrayBuffer());
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  return results;
}

export const volumeCopies: BenchScenario = { name: 'volume snapshot and backup', run };
