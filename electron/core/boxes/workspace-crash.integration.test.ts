import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import type { Snapshot } from '../../../shared/schemas/snapshots';
import { api, startCoreProcess, tempDataDir, type CoreProcess } from '../../../test-support/core-process';
import { cleanUpDataDir, instanceIdOf, readDb } from '../../../test-support/crash-data-dir';
import { docker, waitFor } from '../../../test-support/docker';
import { removeInstanceLeftovers } from '../../../test-support/reliability';
import { STORE_ID_LABEL } from '../storage/port';

// SIGKILL the real core while the store makes or frees a box's workspace (a fork's clone, a
// snapshot's snapshot, a restore's clone, a delete), start it again on the same data dir: no store
// item that no box or snapshot names, no box or snapshot without its item, the source box running.

const dataDir = tempDataDir();
const P = '/v1/projects/wscrash';
let core: CoreProcess | undefined;

after(async () => {
  const instance = instanceIdOf(dataDir);
  await cleanUpDataDir(dataDir, core, async (c) => {
    for (const b of ['origin', 'forked']) await api(c, 'DELETE', `${P}/boxes/${b}`);
    const snaps = ((await (await api(c, 'GET', `${P}/snapshots`)).json()) as { items: Snapshot[] }).items;
    for (const snap of snaps.reverse()) await api(c, 'DELETE', `${P}/snapshots/${snap.id}`);
  });
  await removeInstanceLeftovers(instance);
});

async function sh(script: string, box = 'origin'): Promise<string> {
  const res = await api(core!, 'POST', `${P}/boxes/${box}/exec`, { command: ['sh', '-c', script] });
  assert.equal(res.status, 200, await res.clone().text());
  const out = (await res.json()) as { exit_code: number; stdout: string; stderr: string };
  assert.equal(out.exit_code, 0, out.stderr);
  return out.stdout;
}

const count = (sql: string): number => readDb(dataDir, (db) => db.prepare(sql).pluck().get() as number);

/** Starts `request`, kills the core once `sql` counts a row, waits for the answer (or its failure), starts it again. */
async function killWhen(sql: string, request: () => Promise<unknown>, what: string): Promise<void> {
  const pending = request().catch(() => null);
  await waitFor(async () => count(sql) > 0, 30_000, what);
  await core!.kill();
  await pending;
  core = await startCoreProcess({ dataDir });
}

/** Every item is ready and named by the box or snapshot that owns it; every named item exists; so do their engine volumes. */
async function assertConsistent(): Promise<void> {
  const rows = readDb(dataDir, (db) => ({
    items: db.prepare('SELECT id, owner, status FROM storage_items').all() as {
      id: string;
      owner: string;
      status: string;
    }[],
    named: new Map([
      ...(
        db.prepare('SELECT id, workspace_item FROM boxes WHERE workspace_item IS NOT NULL').all() as {
          id: string;
          workspace_item: string;
        }[]
      ).map((b): [string, string] => [b.workspace_item, `box:${b.id}`]),
      ...(
        db.prepare('SELECT id, item_id FROM snapshots WHERE item_id IS NOT NULL').all() as {
          id: string;
          item_id: string;
        }[]
      ).map((s): [string, string] => [s.item_id, `box-snapshot:${s.id}`]),
    ]),
    pending: db.prepare("SELECT count(*) FROM snapshots WHERE status = 'pending'").pluck().get() as number,
  }));
  assert.equal(rows.pending, 0, 'no half-made snapshot');
  const ours = rows.items.filter((i) => i.owner.startsWith('box'));
  assert.deepEqual(
    ours.filter((i) => i.status !== 'ready' || rows.named.get(i.id) !== i.owner),
    [],
    'items no box or snapshot names',
  );
  const present = new Set(ours.map((i) => i.id));
  assert.deepEqual(
    [...rows.named.keys()].filter((id) => !present.has(id)),
    [],
    'records without their item',
  );
  const label = `boxdesk.instance=${instanceIdOf(dataDir)}`;
  const volumes = (await docker.listVolumes({ filters: { label: [label] } })).Volumes ?? [];
  const all = new Set(rows.items.map((i) => i.id));
  assert.deepEqual(
    volumes.map((v) => v.Labels?.[STORE_ID_LABEL]).filter((id) => id && !all.has(id)),
    [],
    'engine volumes of items that are gone',
  );
}

test('kill -9 during a fork, a snapshot, a restore and a delete: no orphan item, no record without its data', async () => {
  core = await startCoreProcess({ dataDir });
  assert.equal((await api(core, 'POST', `${P}/boxes`, { name: 'origin' })).status, 201);
  const sum = await sh('dd if=/dev/urandom of=blob bs=1M count=32 2>/dev/null && md5sum blob');

  await killWhen(
    "SELECT count(*) FROM storage_items WHERE owner LIKE 'box:%' AND status = 'creating'",
    () => api(core!, 'POST', `${P}/boxes`, { name: 'forked', fork: 'origin' }),
    "the fork's clone",
  );
  await assertConsistent();
  assert.equal(await sh('md5sum blob'), sum, 'the source was thawed and kept its workspace');

  await killWhen(
    "SELECT count(*) FROM storage_items WHERE owner LIKE 'box-snapshot:%' AND status = 'creating'",
    () => api(core!, 'POST', `${P}/boxes/origin/snapshots`, { name: 'cut' }),
    "the snapshot's workspace",
  );
  await assertConsistent();
  assert.equal(await sh('md5sum blob'), sum);

  const snap = (await (await api(core, 'POST', `${P}/boxes/origin/snapshots`, { name: 'whole' })).json()) as Snapshot;
  await sh('rm blob && echo changed > note');
  await killWhen(
    "SELECT count(*) FROM storage_items WHERE owner LIKE 'box:%' AND status = 'creating'",
    () => api(core!, 'POST', `${P}/boxes/origin/restore`, { snapshot_id: snap.id }),
    "the restore's clone",
  );
  await assertConsistent();
  assert.equal(count('SELECT count(*) FROM boxes WHERE pending_root IS NOT NULL'), 0, 'the restore was settled');
  // Rolled back before its swap: the box is as it was, and a restore then works.
  assert.equal(await sh('cat note'), 'changed\n');
  assert.equal((await api(core, 'POST', `${P}/boxes/origin/restore`, { snapshot_id: snap.id })).status, 200);
  assert.equal(await sh('md5sum blob'), sum);

  assert.equal((await api(core, 'POST', `${P}/boxes`, { name: 'forked', fork: 'origin' })).status, 201);
  await killWhen(
    "SELECT count(*) FROM boxes WHERE name = 'forked' AND status = 'deleting'",
    () => api(core!, 'DELETE', `${P}/boxes/forked`),
    'the delete',
  );
  await waitFor(
    async () => count("SELECT count(*) FROM boxes WHERE name = 'forked'") === 0,
    30_000,
    'the delete finished',
  );
  await assertConsistent();
});
