import type { FastifyBaseLogger } from 'fastify';
import fs from 'node:fs';
import path from 'node:path';
import type { ContainerEngine } from '../engine/container-engine';
import { randomBase32 } from '../ids';
import { findAgentFiles } from '../engine/agent/files';
import { BtrfsDriver } from './btrfs-driver';
import { CopyDriver } from './copy-driver';
import { StoreHelper } from './store-helper';
import { STORAGE_DRIVERS, StorageError, type StorageDriver, type StorageDriverName } from './storage-driver';

const BTRFS_SUPER_MAGIC = 0x9123683e;
const GiB = 1024 ** 3;

export interface StorageSettings {
  /** `--storage-driver`: `auto` picks the best that works. */
  driver: 'auto' | StorageDriverName;
  /** `--storage-size`: the loop image's size; null keeps the recorded one (at first: LXD's rule). */
  sizeBytes: number | null;
}

export interface DetectDeps {
  engine: ContainerEngine;
  instanceId: string;
  /** The store folder: `<data dir>/storage`. */
  storeDir: string;
  log: FastifyBaseLogger;
  /** The default base's image (the reflink and copy drivers' helpers run from it). */
  defaultImage: () => Promise<string>;
  /** Small settings kept across starts (the meta table): the loop number and the image's size. */
  meta: { get(key: string): string | undefined; set(key: string, value: string): void };
}

export interface Detected {
  driver: StorageDriver | null;
  /** Why each better driver was not taken (said in GET /v1/system for a fallback). */
  reasons: string[];
}

/** As LXD sizes a loop pool: a fifth of the free space, at least 5 GiB, at most 30 GiB. */
function defaultSize(dir: string): number {
  const st = fs.statfsSync(dir);
  const fifth = Math.floor((st.bavail * st.bsize) / 5);
  return Math.ceil(Math.min(30 * GiB, Math.max(5 * GiB, fifth)) / GiB) * GiB;
}

/** A number of this store's own, high enough that `losetup -f` and snaps rarely take it first. */
function ownLoopNumber(instanceId: string): number {
  let h = 0;
  for (const c of instanceId) h = (h * 31 + c.charCodeAt(0)) >>> 0;
  return 256 + (h % 768);
}

/** Makes a driver, or says why it cannot be one here (before anything is started). */
function makeDriver(name: StorageDriverName, deps: DetectDeps, settings: StorageSettings): StorageDriver | string {
  const { engine, instanceId, storeDir, meta, log } = deps;
  if (name === 'reflink' || name === 'copy')
    return new CopyDriver(name, { engine, instanceId, image: deps.defaultImage });
  if (name === 'btrfs' && fs.statfsSync(storeDir).type !== BTRFS_SUPER_MAGIC)
    return `the data dir is not on btrfs (${storeDir})`;
  const files = findAgentFiles();
  if ('missing' in files) return files.missing;
  const helper = new StoreHelper({ engine, instanceId, files, log });
  if (name === 'btrfs')
    return new BtrfsDriver({ engine, instanceId, helper, hostDir: storeDir, backing: { kind: 'host' } });
  if (!files.emptyFilesystem) return 'the empty filesystem was not made at build time (mkfs.btrfs was missing)';
  const recordedSize = Number(meta.get('storage_size') ?? 0);
  const sizeBytes = Math.max(settings.sizeBytes ?? 0, recordedSize) || defaultSize(storeDir);
  const recordedLoop = meta.get('storage_loop');
  return new BtrfsDriver({
    engine,
    instanceId,
    helper,
    hostDir: storeDir,
    backing: {
      kind: 'loop',
      imageName: `btrfs-${instanceId}.img`,
      sizeBytes,
      preferLoop: recordedLoop ? Number(recordedLoop) : ownLoopNumber(instanceId),
      rememberLoop: (n) => {
        meta.set('storage_loop', String(n));
        meta.set('storage_size', String(sizeBytes));
      },
    },
  });
}

/** A driver works when it starts and can make and remove an item. */
async function probe(driver: StorageDriver): Promise<void> {
  await driver.start();
  const id = `probe-${randomBase32(10)}`;
  try {
    await driver.create(id, null);
  } finally {
    await driver.delete(id);
  }
}

/**
 * The best driver that works here: each is tried (started and probed), never assumed. With
 * items already in the store only the driver that holds them is tried; `--storage-driver`
 * tries only that one.
 */
export async function detectDriver(
  deps: DetectDeps,
  settings: StorageSettings,
  holding: StorageDriverName | null,
): Promise<Detected> {
  fs.mkdirSync(deps.storeDir, { recursive: true, mode: 0o700 });
  const order: readonly StorageDriverName[] = holding
    ? [holding]
    : settings.driver === 'auto'
      ? STORAGE_DRIVERS
      : [settings.driver];
  const reasons: string[] = [];
  if (holding && settings.driver !== 'auto' && settings.driver !== holding)
    reasons.push(`--storage-driver ${settings.driver} ignored: the store holds items of ${holding}`);
  for (const name of order) {
    const made = makeDriver(name, deps, settings);
    if (typeof made === 'string') {
      reasons.push(`${name}: ${made}`);
      continue;
    }
    try {
      await probe(made);
      return { driver: made, reasons };
    } catch (err) {
      await made.stop().catch(() => undefined);
      const why = err instanceof StorageError ? err.message : (err as Error).message;
      deps.log.info({ driver: name, why }, 'store driver not available');
      reasons.push(`${name}: ${why}`);
    }
  }
  return { driver: null, reasons };
}

export function storeDir(dataDir: string): string {
  return path.join(dataDir, 'storage');
}
