import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import type { Box } from '../shared/schemas/box';
import type { Volume, VolumeBackup, VolumeSnapshot } from '../shared/schemas/volumes';
import { AppShell } from './pages/app-shell';
import { BoxDetailPage } from './pages/box-detail-page';
import { BoxFormDialog } from './pages/box-form-dialog';
import { BoxListPage } from './pages/box-list-page';
import { ConfirmDialog } from './pages/confirm-dialog';
import { VolumeMountsView } from './pages/volume-mounts-view';
import { VolumesPage } from './pages/volumes-page';
import { downloaded, screenshots, uiFixture, type UiFixture } from './support/ui-fixture';

// Data volumes in the window, against a real core and engine: the Volumes page,
// mounts in the box create dialog, and the box's Volumes tab.

async function exec(
  ui: UiFixture,
  project: string,
  box: string,
  script: string,
): Promise<{ exit_code: number; stdout: string; stderr: string }> {
  const res = await ui.api('POST', `/v1/projects/${project}/boxes/${box}/exec`, { command: ['sh', '-c', script] });
  assert.equal(res.status, 200, await res.clone().text());
  return (await res.json()) as { exit_code: number; stdout: string; stderr: string };
}

async function getJson<T>(ui: UiFixture, pathname: string): Promise<T> {
  const res = await ui.api('GET', pathname);
  assert.equal(res.status, 200, await res.clone().text());
  return (await res.json()) as T;
}

describe('data volumes in the window', () => {
  const ui = uiFixture();

  test('a volume made on the Volumes page is mounted at box create, backed up live, and its download matches the sha256 shown', async () => {
    const { project, name: box } = ui.uniqueNames('vols', 'app');
    try {
      const page = await ui.open({ route: `/projects/${project}/volumes` });
      const volumes = new VolumesPage(page);
      await volumes.heading(project).waitFor();
      await page.getByText(`No volumes in ${project} yet`).waitFor();
      await new AppShell(page).navLink('Volumes').and(page.locator('[aria-current="page"]')).waitFor();

      // Create: the name is checked as you type; size and retention are sent.
      await volumes.createButton.click();
      await volumes.field('Name').fill('Data_1');
      await volumes.createDialog.getByRole('alert').filter({ hasText: 'lower-case letters' }).waitFor();
      await volumes.field('Name').fill('data');
      await volumes.field('Size (GB)').fill('2');
      await volumes.field('Backups kept').fill('3');
      await volumes.createDialog.getByRole('button', { name: 'Create volume', exact: true }).click();
      await volumes.createDialog.waitFor({ state: 'hidden' });
      await volumes.row('data').getByText('of 2 GB').waitFor();
      await volumes.row('data').getByText('not enforced').waitFor();
      const made = await getJson<Volume>(ui, `/v1/projects/${project}/volumes/data`);
      assert.equal(made.size_gb, 2);
      assert.equal(made.backup_retention, 3);

      // The same name again: the 409 is shown at the name field.
      await volumes.createButton.click();
      await volumes.field('Name').fill('data');
      await volumes.createDialog.getByRole('button', { name: 'Create volume', exact: true }).click();
      await volumes.createDialog.getByRole('alert').filter({ hasText: 'pick another name' }).waitFor();
      await volumes.createDialog.getByRole('button', { name: 'Cancel' }).click();

      // Mount it at box create, through the dialog.
      await page.goto(`${ui.core().url}/#/projects/${project}/boxes`);
      const list = new BoxListPage(page);
      await list.createButton.click();
      const form = new BoxFormDialog(page);
      await form.name.fill(box);
      await form.addMount('data', 'data');
      await form.dialog.getByRole('alert').filter({ hasText: 'Mount 1: An absolute path' }).waitFor();
      await form.dialog.getByRole('textbox', { name: 'Mount 1 path' }).fill('/srv/data');
      await form.submit.click();
      await form.dialog.waitFor({ state: 'hidden', timeout: 120_000 });
      const created = await getJson<Box>(ui, `/v1/projects/${project}/boxes/${box}`);
      assert.deepEqual(
        created.data_mounts?.map((m) => [m.name, m.path]),
        [['data', '/srv/data']],
      );
      const seen = await exec(
        ui,
        project,
        box,
        'grep -c " /srv/data " /proc/mounts && echo kept > /srv/data/hello.txt && cat /srv/data/hello.txt',
      );
      assert.equal(seen.exit_code, 0, seen.stderr);
      assert.equal(seen.stdout, '1\nkept\n', 'the box sees the volume mounted at /srv/data and writes to it');

      // The Volumes page names the box that mounts it.
      await page.goto(`${ui.core().url}/#/projects/${project}/volumes`);
      await volumes.row('data').getByText(`${box} at /srv/data`).waitFor();

      // A snapshot, taken in the drawer.
      await volumes.open('data');
      await volumes.drawerButton('Take snapshot').click();
      const snapshots = volumes.snapshots('data');
      await snapshots.getByRole('row').nth(1).waitFor({ timeout: 60_000 });
      // What deleting it would free is its own column, measured by the store.
      await snapshots.getByRole('columnheader', { name: 'Frees' }).waitFor();
      const [snap] = (await getJson<{ items: VolumeSnapshot[] }>(ui, `/v1/projects/${project}/volumes/data/snapshots`))
        .items;
      assert.equal(typeof snap?.exclusive_bytes, 'number');

      // A backup: pending, then done by a volume.backup event; the sha256 shown is the archive's.
      await volumes.drawerButton('Back up now').click();
      const backups = volumes.backups('data');
      await backups.getByText('done', { exact: true }).waitFor({ timeout: 120_000 });
      const [backup] = (await getJson<{ items: VolumeBackup[] }>(ui, `/v1/projects/${project}/volumes/data/backups`))
        .items;
      assert.equal(backup?.status, 'done');
      const shown = (await volumes.sha256(backup.id).textContent())?.trim();
      assert.equal(shown, backup.sha256, 'the window shows the API’s sha256');
      await screenshots(page, 'volume-backups');
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        volumes
          .item(backups, backup.id)
          .getByRole('button', { name: `Download backup ${backup.id}` })
          .click(),
      ]);
      assert.equal(download.suggestedFilename(), `data-${backup.id}.tar.gz`);
      const bytes = await downloaded(download);
      assert.equal(createHash('sha256').update(bytes).digest('hex'), shown, 'the download hashes to the sha256 shown');
      assert.ok(gunzipSync(bytes).includes('hello.txt'), 'the archive holds the file the box wrote');

      // Clone the backup into a new volume: it holds the file too.
      await volumes
        .item(backups, backup.id)
        .getByRole('button', { name: `Clone backup ${backup.id} into a new volume` })
        .click();
      const clone = page.getByRole('dialog', { name: 'Clone a backup of data into a new volume' });
      await clone.getByRole('textbox', { name: 'Name' }).fill('data-copy');
      await clone.getByRole('button', { name: 'Clone', exact: true }).click();
      await clone.waitFor({ state: 'hidden', timeout: 120_000 });
      await volumes.row('data-copy').waitFor({ state: 'attached' });
      const copy = await getJson<Volume>(ui, `/v1/projects/${project}/volumes/data-copy`);
      assert.ok(copy.size_bytes > 0, 'the clone is filled from the archive');

      // A backup started elsewhere (the API, the CLI) shows up and ends done by events alone.
      assert.equal((await ui.api('POST', `/v1/projects/${project}/volumes/data/backups`)).status, 202);
      await backups.getByText('done', { exact: true }).nth(1).waitFor({ timeout: 120_000 });

      // A restore from the snapshot is refused while the box runs: the problem says what to do.
      await snapshots.getByRole('button', { name: /^Restore data from snapshot vsnap_/ }).click();
      const restore = new ConfirmDialog(page, /^Restore data from snapshot vsnap_/);
      await restore.button('Restore').click();
      await restore.refusal.filter({ hasText: 'stop those boxes' }).waitFor({ timeout: 60_000 });
      await restore.cancel();
      await volumes.drawer.getByRole('button', { name: 'Close' }).click();
      await volumes.drawer.waitFor({ state: 'hidden' });
      assert.equal((await ui.api('POST', `/v1/projects/${project}/volumes`, { name: 'from-api' })).status, 201);
      await volumes.row('from-api').getByText('not mounted').waitFor();
      await page.mouse.move(600, 600);
      await page.getByText('Snapshot of data taken').waitFor({ state: 'detached' });
      await screenshots(page, 'volumes');

      // Delete while mounted: the 409 names the box.
      await volumes.deleteButton('data').click();
      const remove = new ConfirmDialog(page, 'Delete the volume data?');
      await remove.button('Delete volume').click();
      await remove.refusal.filter({ hasText: box }).waitFor();
      await remove.cancel();
      assert.equal(
        (await ui.api('GET', `/v1/projects/${project}/volumes/data`)).status,
        200,
        'the volume is still there',
      );
    } finally {
      await ui.clear(project);
    }
  });

  test('the box’s Volumes tab attaches a volume read-only at a path and detaches it, the box keeping its root files', async () => {
    const { project, name: box } = await ui.uniqueBox('vattach', 'web');
    try {
      assert.equal((await ui.api('POST', `/v1/projects/${project}/volumes`, { name: 'shared' })).status, 201);
      assert.equal((await exec(ui, project, box, 'echo mine > /root/own.txt')).exit_code, 0);
      const page = await ui.open({ route: `/projects/${project}/boxes/${box}/overview` });
      await new BoxDetailPage(page, box).tab('Volumes').click();
      const view = new VolumeMountsView(page, box);
      await page.getByText('a running box restarts', { exact: false }).first().waitFor();
      await page.getByText(`${box} mounts no data volume.`).waitFor();

      await view.volume.click();
      await page.getByRole('option', { name: 'shared', exact: true }).click();
      await view.path.fill('/proc/x');
      await view.form.getByRole('alert').filter({ hasText: '/proc' }).waitFor();
      await view.path.fill('/mnt/shared');
      await view.readOnly.check();
      await view.attachButton.click();
      // The box's new mounts arrive by event before its container is recreated; the toast says when it is.
      await view.row('shared').getByText('read-only').waitFor({ timeout: 120_000 });
      await page.getByText('Attached shared', { exact: true }).waitFor({ timeout: 120_000 });
      assert.equal(await view.busy.count(), 0, 'no operation left in progress');

      const attached = await getJson<Box>(ui, `/v1/projects/${project}/boxes/${box}`);
      assert.equal(attached.status, 'running');
      assert.deepEqual(
        attached.data_mounts?.map((m) => [m.name, m.path, m.read_only]),
        [['shared', '/mnt/shared', true]],
      );
      const ro = await exec(ui, project, box, 'cat /root/own.txt && grep " /mnt/shared " /proc/mounts');
      assert.equal(ro.exit_code, 0, ro.stderr);
      assert.match(ro.stdout, /^mine\n/, 'the root files are kept across the restart');
      assert.match(ro.stdout, / \/mnt\/shared \S+ ro[, ]/, 'mounted read-only');
      await screenshots(page, 'box-volumes-tab');

      await view.detachButton('shared').click();
      await view.confirm('Detach').click();
      await page.getByText(`${box} mounts no data volume.`).waitFor({ timeout: 120_000 });
      await page.getByText('Detached shared', { exact: true }).waitFor({ timeout: 120_000 });
      const detached = await getJson<Box>(ui, `/v1/projects/${project}/boxes/${box}`);
      assert.deepEqual(detached.data_mounts ?? [], []);
      assert.equal((await exec(ui, project, box, 'grep -c " /mnt/shared " /proc/mounts')).stdout.trim(), '0');
    } finally {
      await ui.clear(project);
    }
  });
});
