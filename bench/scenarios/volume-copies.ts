import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip, constants as zlib } from 'node:zlib';
import { api } from '../../test-support/core-process';
import type { ScenarioResult } from '../report';
import { BENCH_LABEL, docker } from '../raw-engine';
import { alternate, progress, summarize, timed, type Summary } from '../stats';
import { deleteBox, execInBox, type BenchContext } from './context';

const TARGET = 1.2;
const SIZES_MB = [10, 200];

function count(): number {
  const n = Number(process.env.BENCH_VOLUME_N ?? 3);
  if (!Number.isInteger(n) || n < 1)
    throw new Error(`BENCH_VOLUME_N must be a positive whole number, got "${process.env.BENCH_VOLUME_N}"`);
  return n;
}

async function expect(res: Response, status: number, what: string): Promise<unknown> {
  const text = await res.text();
  if (res.status !== status) throw new Error(`${what}: expected HTTP ${status}, got ${res.status}: ${text}`);
  return text ? JSON.parse(text) : undefined;
}

function row(name: string, n: number, ours: Summary, raw: Summary, note: string): ScenarioResult {
  const ratio = ours.p50 / raw.p50;
  return {
    name,
    unit: 'ms',
    n,
    ours,
    raw,
    ratioKind: 'ours/raw p50',
    ratio,
    target: `≤ ${TARGET}`,
    verdict: ratio <= TARGET ? 'PASS' : 'MISS',
    notes: [`p95 ratio ${(ours.p95 / raw.p95).toFixed(2)}; ${note}`],
  };
}

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

/** Volume snapshot and backup at 10 and 200 MB, beside the same work done on the raw engine. */
export async function volumeCopies(ctx: BenchContext): Promise<ScenarioResult[]> {
  const n = count();
  const results: ScenarioResult[] = [];
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'boxdesk-bench-vol-'));
  const P = `/v1/projects/${ctx.project}`;
  try {
    for (const mb of SIZES_MB) {
      const name = `vol${mb}`;
      progress(`volume ${mb} MB: filling it through a box`);
      const vol = (await expect(await api(ctx.core, 'POST', `${P}/volumes`, { name }), 201, 'create volume')) as {
        id: string;
      };
      const engineName = (await docker.listVolumes({ filters: { label: [`boxdesk.id=${vol.id}`] } })).Volumes[0]!.Name;
      const box = `filler${mb}`;
      ctx.boxes.add(box);
      await expect(
        await api(ctx.core, 'POST', `${P}/boxes`, { name: box, data_mounts: [{ name, path: '/data' }] }),
        201,
        'create box',
      );
      await execInBox(
        ctx,
        box,
        ['sh', '-c', `for i in $(seq 1 ${mb / 10}); do head -c 10485760 /dev/urandom > /data/f$i; done; sync`],
        300,
      );
      // Idle volume: the box is deleted, so neither side has to pause anything.
      await deleteBox(ctx, box);

      const snaps = await alternate(
        n,
        async () => {
          const { ms, value } = await timed(() =>
            api(ctx.core, 'POST', `${P}/volumes/${name}/snapshots`).then((r) => expect(r, 201, 'snapshot')),
          );
          await api(ctx.core, 'DELETE', `${P}/volumes/${name}/snapshots/${(value as { id: string }).id}`).then((r) =>
            r.arrayBuffer(),
          );
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
      results.push(
        row(
          `volume snapshot ${mb} MB`,
          n,
          summarize(snaps.ours),
          summarize(snaps.raw),
          'raw: create volume + cp -a in a container',
        ),
      );

      const backups = await alternate(
        n,
        async () => {
          const { ms } = await timed(async () => {
            const b = (await expect(await api(ctx.core, 'POST', `${P}/volumes/${name}/backups`), 202, 'backup')) as {
              id: string;
            };
            for (;;) {
              const s = (await expect(
                await api(ctx.core, 'GET', `${P}/volumes/${name}/backups/${b.id}`),
                200,
                'backup status',
              )) as { status: string; reason: string | null };
              if (s.status === 'failed') throw new Error(`backup failed: ${s.reason}`);
              if (s.status === 'done') return;
              await new Promise((r) => setTimeout(r, 25));
            }
          });
          return ms;
        },
        async (i) => {
          const file = path.join(tmp, `raw-${mb}-${i}.tar.gz`);
          const { ms } = await timed(() => rawBackup(ctx.image, engineName, file));
          fs.rmSync(file, { force: true });
          return ms;
        },
      );
      results.push(
        row(
          `volume backup ${mb} MB`,
          n,
          summarize(backups.ours),
          summarize(backups.raw),
          'raw: the engine tar of the volume through a container, gzip -1 + sha256 to a file; ours polled every 25 ms',
        ),
      );
      await api(ctx.core, 'DELETE', `${P}/volumes/${name}`).then((r) => r.arrayBuffer());
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  return results;
}
