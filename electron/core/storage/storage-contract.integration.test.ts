import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { ContainerEngine, VolumeMount } from '../engine/container-engine';
import { randomBase32 } from '../ids';
import { tempDataDir } from '../../../test-support/core-process';
import {
  MiB,
  crashDuring,
  hostBtrfs,
  inContainer,
  missingFor,
  openStorage,
  removeStoreLeftovers,
} from '../../../test-support/storage';
import type { Storage } from './storage';
import { STORAGE_DRIVERS, type StorageDriverName } from './storage-driver';

/**
 * One suite, every driver this machine can run (STYLE.md: LXD runs each storage driver
 * through the same tests). BOXDESK_TEST_STORAGE_DRIVERS=copy (a comma list) narrows it: the
 * lane without btrfs. A driver that cannot work here must say why, and is then skipped.
 */
const wanted = (process.env.BOXDESK_TEST_STORAGE_DRIVERS ?? STORAGE_DRIVERS.join(','))
  .split(',')
  .map((d) => d.trim()) as StorageDriverName[];

// The drivers share nothing (each its own instance, data dir and items) and their tests mostly
// wait on helper containers: they run side by side, each driver's tests one after another.
describe('store drivers', { concurrency: true }, () => {
  for (const driver of STORAGE_DRIVERS.filter((d) => wanted.includes(d))) {
    describe(`store driver ${driver}`, { concurrency: false }, () => {
      const missing = missingFor(driver);
      const instanceId = `st${randomBase32(10)}`;
      let fixture: { dir: string; remove(): void } | null = null;
      let dataDir = '';
      let storage: Storage;
      let engine: ContainerEngine;
      let db: { close(): void } | null = null;
      let skipped: string | null = missing;
      let running = false;

      const mount = async (id: string, path = '/w'): Promise<VolumeMount> => ({
        ...(await storage.mountFor(id)),
        path,
      });
      const sh = async (id: string, script: string) => inContainer(engine, [await mount(id)], script);
      const open = () => {
        db?.close();
        const opened = openStorage(dataDir, instanceId, driver);
        db = opened.db;
        storage = opened.storage;
        engine = opened.engine;
        running = true;
      };

      before(async () => {
        if (skipped) return;
        if (driver === 'btrfs') fixture = hostBtrfs();
        dataDir = fixture ? fs.mkdtempSync(`${fixture.dir}/data-`) : tempDataDir('boxdesk-store-');
        open();
        await storage.start();
        if (storage.driverName !== driver) {
          // Only reflink may be missing on a machine that has the rest: it must say why.
          const reason = storage.report().reason ?? '';
          assert.equal(driver, 'reflink', `driver ${driver} did not start here: ${reason}`);
          assert.match(reason, /reflink: .+/);
          skipped = `reflink is not available here: ${reason}`;
        }
      });

      after(async () => {
        try {
          if (engine && !missing && storage.driverName === driver) {
            // Through the store itself: it reconciles what a crash left, deletes, and lets go of its loop device.
            if (!running) {
              open();
              await storage.start();
            }
            for (const item of storage.list().reverse()) await storage.delete(item.id);
            await storage.stop();
          }
        } finally {
          db?.close();
          if (engine) await removeStoreLeftovers(engine, instanceId);
          if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
          fixture?.remove();
        }
      });

      const it = (name: string, fn: () => Promise<void>) =>
        test(name, async (t) => {
          if (skipped) return t.skip(skipped);
          await fn();
        });

      it('reports itself with its path and space', async () => {
        const report = await storage.measuredReport();
        assert.equal(report.driver, driver);
        assert.ok(report.path);
        if (driver !== 'copy' && driver !== 'reflink') assert.ok((report.size_bytes ?? 0) > 0);
      });

      it('a clone and its source diverge: each sees only its own writes', async () => {
        const a = await storage.create({ owner: 'test' });
        assert.equal((await sh(a.id, 'echo base > /w/base && echo ok')).output.trim(), 'ok');
        const b = await storage.clone(a.id, { owner: 'test' });
        await sh(a.id, 'echo from-a > /w/a');
        await sh(b.id, 'echo from-b > /w/b');
        assert.equal((await sh(a.id, 'cat /w/base; ls /w | tr "\\n" " "')).output, 'base\na base ');
        assert.equal((await sh(b.id, 'cat /w/base; ls /w | tr "\\n" " "')).output, 'base\nb base ');
      });

      it('a snapshot is read-only and keeps its content; restore brings it back', async () => {
        const a = await storage.create({ owner: 'test' });
        await sh(a.id, 'echo v1 > /w/f');
        const s = await storage.snapshot(a.id, { owner: 'test' });
        await sh(a.id, 'echo v2 > /w/f; echo new > /w/g');
        const write = await sh(s.id, 'echo x > /w/f && echo wrote; cat /w/f');
        assert.doesNotMatch(write.output, /wrote/);
        assert.match(write.output, /Read-only file system/);
        assert.equal((await sh(s.id, 'cat /w/f')).output, 'v1\n');
        await storage.restore(a.id, s.id);
        assert.equal((await sh(a.id, 'cat /w/f; ls /w')).output, 'v1\nf\n');
      });

      it('usage: size follows what is written, exclusive what only that item holds', async () => {
        const a = await storage.create({ owner: 'test' });
        await sh(a.id, 'dd if=/dev/urandom of=/w/data bs=1M count=24 2>/dev/null');
        const s = await storage.snapshot(a.id, { owner: 'test' });
        const first = await storage.usage([a.id, s.id]);
        assert.ok(first.get(a.id)!.sizeBytes >= 24 * MiB, `size ${first.get(a.id)!.sizeBytes}`);
        assert.ok(first.get(s.id)!.sizeBytes >= 24 * MiB);
        if (storage.report().driver?.includes('btrfs')) {
          // Shared blocks: deleting the snapshot would free almost nothing, until the source is rewritten.
          assert.ok(first.get(s.id)!.exclusiveBytes < 2 * MiB, `exclusive ${first.get(s.id)!.exclusiveBytes}`);
          await sh(a.id, 'dd if=/dev/urandom of=/w/data bs=1M count=24 2>/dev/null');
          const second = await storage.usage([s.id]);
          assert.ok(second.get(s.id)!.exclusiveBytes >= 24 * MiB, `exclusive ${second.get(s.id)!.exclusiveBytes}`);
        } else assert.equal(first.get(s.id)!.exclusiveBytes, first.get(s.id)!.sizeBytes);
      });

      it('a quota stops writes inside the container only, and nothing else notices', async () => {
        const capped = await storage.create({ owner: 'test', quotaBytes: 32 * MiB });
        const free = await storage.create({ owner: 'test' });
        const write = (id: string) =>
          sh(id, 'dd if=/dev/zero of=/w/fill bs=1M count=64 2>&1; echo "exit=$?"; ls -l /w/fill');
        const [inCapped, inFree] = await Promise.all([write(capped.id), write(free.id)]);
        assert.match(inFree.output, /exit=0/);
        if (storage.enforcesQuota) {
          assert.match(inCapped.output, /Disk quota exceeded|No space left on device/);
          assert.match(inCapped.output, /exit=1/);
          const size = Number(/\s(\d+)\s+\w{3}\s+\d+/.exec(inCapped.output)?.[1]);
          assert.ok(size <= 32 * MiB, `wrote ${size} bytes past a 32 MiB quota`);
          // The same item takes writes again once room is made.
          assert.match((await sh(capped.id, 'rm /w/fill && echo small > /w/s && cat /w/s')).output, /small/);
        } else assert.match(inCapped.output, /exit=0/); // recorded, not enforced (storage_enforced: false)
      });

      it('delete removes the item and frees its space', async () => {
        const a = await storage.create({ owner: 'test' });
        await sh(a.id, 'dd if=/dev/urandom of=/w/data bs=1M count=64 2>/dev/null');
        await storage.settle();
        const used = storage.report().used_bytes ?? 0;
        await storage.delete(a.id);
        assert.equal(storage.get(a.id), undefined);
        assert.ok(!(await storage.idsInStore()).includes(a.id));
        if (driver === 'btrfs' || driver === 'loop-btrfs') {
          // The store's own filesystem: nothing else writes to it (the engine's disk is shared).
          await storage.settle();
          const freed = used - (storage.report().used_bytes ?? 0);
          assert.ok(freed >= 48 * MiB, `freed ${freed} bytes of 64 MiB`);
        }
      });

      it('a kill -9 between intent and completion is reconciled at the next start', async () => {
        const a = await storage.create({ owner: 'test' });
        await sh(a.id, 'echo keep > /w/k');
        const s = await storage.snapshot(a.id, { owner: 'test' });
        await sh(a.id, 'echo changed > /w/k');
        const doomed = await storage.create({ owner: 'test' });
        await storage.stop();
        running = false;
        const cloneId = `st_crash${randomBase32(8)}`;
        const common = { dataDir, instanceId, driver };
        await crashDuring({ ...common, op: 'clone', step: 'done', ids: [a.id, cloneId] });
        await crashDuring({ ...common, op: 'delete', step: 'intent', ids: [doomed.id] });
        await crashDuring({ ...common, op: 'restore', step: 'intent', ids: [a.id, s.id] });
        open();
        await storage.start();
        const records = storage.list();
        // No item without its record, no record without its item, nothing half done.
        assert.deepEqual((await storage.idsInStore()).sort(), records.map((r) => r.id).sort());
        assert.ok(records.every((r) => r.status === 'ready'));
        assert.equal(storage.get(cloneId), undefined, 'an unanswered clone is undone');
        assert.equal(storage.get(doomed.id), undefined, 'an interrupted delete is finished');
        assert.equal((await sh(a.id, 'cat /w/k')).output, 'keep\n', 'an interrupted restore is finished');
      });
    });
  }
});
