import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import path from 'node:path';
import { after, test } from 'node:test';
import type { Box } from '../../../shared/schemas/box';
import type { Snapshot } from '../../../shared/schemas/snapshots';
import { api, startCoreProcess, tempDataDir, type CoreProcess } from '../../../test-support/core-process';
import { cleanUpDataDir, readDb as readDbOf } from '../../../test-support/crash-data-dir';
import { containersOfBox, docker, waitFor } from '../../../test-support/docker';
import { imagesOfInstance } from '../../../test-support/snapshots';

// SIGKILL the real core while the engine commits a snapshot, start it again
// on the same data dir: the snapshot is complete or absent, and every image
// this core made is owned by a box, a snapshot or a base.

const dataDir = tempDataDir();
let core: CoreProcess;
const P = '/v1/projects/crashsnap';

after(() =>
  cleanUpDataDir(dataDir, core, async (c) => {
    const { items } = (await (await api(c, 'GET', `${P}/boxes`)).json()) as { items: Box[] };
    for (const b of items) await api(c, 'DELETE', `${P}/boxes/${b.name}`);
    const snaps = ((await (await api(c, 'GET', `${P}/snapshots`)).json()) as { items: Snapshot[] }).items;
    for (const snap of snaps.reverse()) await api(c, 'DELETE', `${P}/snapshots/${snap.id}`);
  }),
);

const readDb = <T>(query: (db: Database.Database) => T): T => readDbOf(dataDir, query);

async function exec(box: string, script: string): Promise<string> {
  const res = await api(core, 'POST', `${P}/boxes/${box}/exec`, { command: ['sh', '-c', script] });
  assert.equal(res.status, 200);
  return ((await res.json()) as { stdout: string }).stdout;
}

/** Every image carrying this core's instance label is named by a row of its store. */
async function assertNoUnownedImage(): Promise<void> {
  const instance = readDb(
    (db) => db.prepare("SELECT value FROM meta WHERE key = 'instance_id'").pluck().get() as string,
  );
  const named = readDb(
    (db) =>
      new Set([
        ...(db
          .prepare(
            'SELECT image FROM boxes UNION SELECT image FROM snapshots WHERE image IS NOT NULL UNION SELECT image FROM bases',
          )
          .pluck()
          .all() as string[]),
      ]),
  );
  const unowned = (await imagesOfInstance(instance)).filter((i) => !named.has(i.Id));
  assert.deepEqual(
    unowned.map((i) => [i.Id, i.Labels['boxdesk.role'], i.Labels['boxdesk.owner']]),
    [],
    'images nobody owns',
  );
}

for (const when of ['while the engine commits', 'just after the intent is written'] as const) {
  test(`kill -9 ${when}: the snapshot is complete or absent, no image nobody owns`, async () => {
    core ??= await startCoreProcess({ dataDir });
    const name = when === 'while the engine commits' ? 'victim-a' : 'victim-b';
    const created = (await (await api(core, 'POST', `${P}/boxes`, { name })).json()) as Box;
    // Enough data that the commit takes a while.
    await exec(
      name,
      'dd if=/dev/urandom of=/root/blob bs=1M count=64 2>/dev/null; md5sum /root/blob | cut -d" " -f1 > /root/sum',
    );
    const sum = await exec(name, 'cat /root/sum');
    const [container] = await containersOfBox(created.id);
    const pending = api(core, 'POST', `${P}/boxes/${name}/snapshots`, { name: 'mid' }).catch(() => null);
    if (when === 'while the engine commits') {
      // The box is frozen for its workspace and its root; the workspace is settled (recorded empty on a copy
      // store, a ready snapshot item on others) just before the commit.
      const settled = `SELECT count(*) FROM snapshots s WHERE s.status = 'pending' AND (s.workspace_empty = 1
        OR EXISTS (SELECT 1 FROM storage_items i WHERE i.id = s.item_id AND i.status = 'ready'))`;
      await waitFor(
        async () =>
          (await docker.getContainer(container!.Id).inspect()).State.Paused &&
          readDb((db) => db.prepare(settled).pluck().get() as number) > 0,
        15_000,
        'the commit to pause the box',
      );
    } else {
      await waitFor(
        async () =>
          readDb(
            (db) => db.prepare("SELECT count(*) FROM snapshots WHERE status = 'pending'").pluck().get() as number,
          ) > 0,
        15_000,
        'the intent row',
      );
    }
    await core.kill();
    await pending;
    core = await startCoreProcess({ dataDir });

    assert.equal(
      readDb((db) => db.prepare("SELECT count(*) FROM snapshots WHERE status = 'pending'").pluck().get()),
      0,
      'no half-made snapshot is left',
    );
    const snaps = ((await (await api(core, 'GET', `${P}/boxes/${name}/snapshots`)).json()) as { items: Snapshot[] })
      .items;
    assert.ok(snaps.length <= 1);
    if (snaps.length === 1) {
      // Complete: restoring it brings the data back intact.
      await exec(name, 'rm /root/blob');
      const res = await api(core, 'POST', `${P}/boxes/${name}/restore`, { snapshot_id: snaps[0]!.id });
      assert.equal(res.status, 200, await res.clone().text());
      assert.equal(await exec(name, 'md5sum /root/blob | cut -d" " -f1'), sum);
    }
    process.stderr.write(`# ${when}: snapshot ${snaps.length ? 'complete' : 'absent'} after the crash\n`);
    const box = (await (await api(core, 'GET', `${P}/boxes/${name}`)).json()) as Box;
    assert.equal(box.status, 'running', 'the box itself is unharmed');
    await assertNoUnownedImage();
  });
}

test('at start, a snapshot whose commit never reached the engine is dropped, and a snapshot image without its row is removed', async () => {
  core ??= await startCoreProcess({ dataDir });
  const created = (await (await api(core, 'POST', `${P}/boxes`, { name: 'never' })).json()) as Box;
  await core.stop();
  const instance = readDb(
    (db) => db.prepare("SELECT value FROM meta WHERE key = 'instance_id'").pluck().get() as string,
  );
  // What a crash leaves between the intent and the commit: a pending row and no image.
  const db = new Database(path.join(dataDir, 'boxdesk.db'));
  db.prepare(
    "INSERT INTO snapshots (id, project, box_id, box, name, status, image, size_bytes, parent_id, base, config, environment, created_at) VALUES ('snap_neverneverneverneve', 'crashsnap', ?, 'never', 'lost', 'pending', NULL, NULL, 'default', 'default', '{}', '{}', ?)",
  ).run(created.id, new Date().toISOString());
  db.close();
  // And an image labelled for a snapshot the store does not know (a commit whose row was lost).
  const [container] = await containersOfBox(created.id);
  const stray = (await docker.getContainer(container!.Id).commit({
    changes: [
      `LABEL boxdesk.instance=${instance}`,
      'LABEL boxdesk.role=snapshot',
      'LABEL boxdesk.owner=snap_strayimagestrayimag',
    ],
  })) as { Id: string };
  core = await startCoreProcess({ dataDir });
  assert.equal(
    readDb((db) => db.prepare("SELECT count(*) FROM snapshots WHERE id = 'snap_neverneverneverneve'").pluck().get()),
    0,
  );
  assert.equal(
    ((await (await api(core, 'GET', `${P}/boxes/never/snapshots`)).json()) as { items: Snapshot[] }).items.length,
    0,
  );
  await assert.rejects(docker.getImage(stray.Id).inspect(), /no such image/i);
  await assertNoUnownedImage();
});
