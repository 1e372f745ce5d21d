import { execFileSync, spawn } from 'node:child_process';
import Fastify from 'fastify';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Db } from '../electron/core/db/database';
import { openCoreDatabase } from '../electron/core/modules';
import type { ContainerEngine, VolumeMount } from '../electron/core/engine/container-engine';
import { DockerEngine } from '../electron/core/engine/docker/docker-engine';
import { randomBase32 } from '../electron/core/ids';
import { findAgentFiles } from '../electron/core/engine/agent/files';
import { STORE_ID_LABEL } from '../electron/core/storage/engine-volumes';
import { HELPER_IMAGE_LABELS, STORE_HELPER_ROLE } from '../electron/core/storage/store-helper';
import { Storage, type StorageDeps } from '../electron/core/storage/storage';
import type { StorageDriverName } from '../electron/core/storage/storage-driver';
import { bundleScript } from '../scripts/bundle-tests.mjs';
import { ROOT, TEST_IMAGE } from './core-process';

export const MiB = 1024 * 1024;
export const silentLog = Fastify({ logger: false }).log;

/** A store over a real SQLite file in `dataDir`, on the real engine, with exactly this driver. */
export function openStorage(
  dataDir: string,
  instanceId: string,
  driver: StorageDriverName,
  extra: Partial<StorageDeps> = {},
): { storage: Storage; db: Db; engine: ContainerEngine } {
  const db = openCoreDatabase(dataDir);
  const engine = new DockerEngine();
  const storage = new Storage({
    db,
    engine,
    instanceId,
    dataDir,
    settings: { driver, sizeBytes: 2 * 1024 * MiB },
    defaultImage: async () => TEST_IMAGE,
    log: silentLog,
    ...extra,
  });
  return { storage, db, engine };
}

/** Runs a busybox script in a throwaway container with these mounts; answers its exit code and output. */
export async function inContainer(
  engine: ContainerEngine,
  mounts: VolumeMount[],
  script: string,
): Promise<{ code: number; output: string }> {
  const id = await engine.createContainer({
    name: `boxdesk-storetest-${randomBase32(8)}`,
    image: TEST_IMAGE,
    command: ['/bin/sh', '-c', script],
    hostname: 'storetest',
    env: {},
    labels: {},
    limits: { cpus: 1, ramMb: 256, pidsLimit: 64 },
    storageGb: null,
    graceSeconds: 0,
    offline: true,
    mounts,
  });
  try {
    await engine.startContainer(id);
    const code = await engine.waitContainer(id);
    const parts: Buffer[] = [];
    for await (const chunk of await engine.logs(id, { follow: false })) parts.push(Buffer.from(chunk as Buffer));
    return { code, output: Buffer.concat(parts).toString('utf8') };
  } finally {
    await engine.removeContainer(id);
  }
}

/**
 * Removes whatever a store of `instanceId` left in the engine: helper containers (a crashed
 * process's too), its engine volumes and its helper image. The normal way out is
 * Storage.stop(); this is the net under it.
 */
export async function removeStoreLeftovers(engine: ContainerEngine, instanceId: string): Promise<void> {
  for (const c of await engine.listContainers({ 'boxdesk.instance': instanceId, 'boxdesk.role': STORE_HELPER_ROLE }))
    await engine.removeContainer(c.id);
  for (const v of await engine.listVolumes({ 'boxdesk.instance': instanceId }))
    if (v.labels[STORE_ID_LABEL] || v.labels['boxdesk.role'] === 'store-probe')
      await engine.removeVolume(v.name).catch(() => undefined);
  for (const image of await engine.listImages({ [HELPER_IMAGE_LABELS.instance]: instanceId }))
    await engine.removeImage(image.id).catch(() => undefined);
}

/** Why a driver cannot run here, or null when the machine has what it needs. */
export function missingFor(driver: StorageDriverName): string | null {
  if (driver === 'copy' || driver === 'reflink') return null;
  const files = findAgentFiles();
  if ('missing' in files) return files.missing;
  if (driver === 'btrfs' && process.getuid?.() !== 0) return 'making a btrfs filesystem to test on needs root';
  if (driver === 'btrfs' && !hasTool('mkfs.btrfs')) return 'mkfs.btrfs is not installed';
  return null;
}

function hasTool(name: string): boolean {
  return ['/usr/sbin', '/sbin', '/usr/bin', '/bin'].some((d) => fs.existsSync(path.join(d, name)));
}

/**
 * A btrfs filesystem for the `btrfs` driver's lane (this machine's / is ext4): a 2 GiB
 * sparse image attached to a free loop device and mounted on the host under /tmp, all
 * undone by `remove()`. Only the loop device it attached itself is ever touched.
 */
export function hostBtrfs(): { dir: string; remove(): void } {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'boxdesk-btrfs-'));
  const image = path.join(base, 'fs.img');
  const dir = path.join(base, 'mnt');
  fs.mkdirSync(dir);
  fs.closeSync(fs.openSync(image, 'w'));
  fs.truncateSync(image, 2 * 1024 * MiB);
  execFileSync('mkfs.btrfs', ['-q', '-f', image], {
    env: { ...process.env, PATH: `/usr/sbin:/sbin:${process.env.PATH}` },
  });
  const loop = execFileSync('losetup', ['--find', '--show', image], { encoding: 'utf8' }).trim();
  try {
    execFileSync('mount', ['-t', 'btrfs', loop, dir]);
  } catch (err) {
    execFileSync('losetup', ['-d', loop]);
    throw err;
  }
  return {
    dir,
    remove() {
      execFileSync('umount', [dir]);
      execFileSync('losetup', ['-d', loop]);
      fs.rmSync(base, { recursive: true, force: true });
    },
  };
}

/**
 * Runs one store operation in a separate process that kills itself (SIGKILL, as kill -9)
 * at `step` of it: after its intent is recorded, or after the driver is done but before the
 * record says so. Answers once that process is dead.
 */
export async function crashDuring(args: {
  dataDir: string;
  instanceId: string;
  driver: StorageDriverName;
  op: 'snapshot' | 'clone' | 'delete' | 'restore';
  step: 'intent' | 'done';
  ids: string[];
}): Promise<void> {
  // A bundle: through tsx the child took some 3 s here loading the store's sources before it began.
  const child = spawn(
    process.execPath,
    ['--enable-source-maps', await bundleScript('test-support/storage-crash-child.ts'), JSON.stringify(args)],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const signal = await new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, sig) => resolve(sig)));
  if (signal !== 'SIGKILL') throw new Error(`the store process was to die at ${args.op}/${args.step}:\n${output}`);
}

/**
 * Waits until the core's store has started; answers why a test on `driver` must skip (the store
 * fell back to another driver, or did not start within 2 minutes), or null.
 */
export async function storeSkipReason(
  api: (method: string, pathname: string) => Promise<Response>,
  driver: StorageDriverName,
): Promise<string | null> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const { storage } = (await (await api('GET', '/v1/system')).json()) as {
      storage: { driver: string | null; reason?: string };
    };
    if (storage.driver)
      return storage.driver === driver ? null : `the store fell back to ${storage.driver}: ${storage.reason ?? ''}`;
    if (storage.reason !== 'starting' || Date.now() > deadline)
      return `the ${driver} store did not start here: ${storage.reason ?? 'no reason given'}`;
    await new Promise((r) => setTimeout(r, 250));
  }
}
