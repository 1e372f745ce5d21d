import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { TEST_IMAGE } from '../test-support/core-process';
import { busyboxBinary, tinyRootfsTar } from '../test-support/snapshots';
import { AppShell } from './pages/app-shell';
import { BasesPage } from './pages/bases-page';
import { BoxDetailPage } from './pages/box-detail-page';
import { BoxListPage } from './pages/box-list-page';
import { ConfirmDialog } from './pages/confirm-dialog';
import { SnapshotsView } from './pages/snapshots-view';
import {
  createBoxViaApi,
  dialogCloses,
  screenshots,
  uiFixture,
  uniqueName,
  type UiFixture,
} from './support/ui-fixture';

interface Snap {
  id: string;
  name: string;
  box: string;
  created_at: string;
}

async function exec(ui: UiFixture, project: string, box: string, script: string): Promise<string> {
  const res = await ui.api('POST', `/v1/projects/${project}/boxes/${box}/exec`, { command: ['sh', '-c', script] });
  assert.equal(res.status, 200, await res.clone().text());
  const out = (await res.json()) as { exit_code: number; stdout: string; stderr: string };
  assert.equal(out.exit_code, 0, out.stderr);
  return out.stdout;
}

describe('snapshots and bases in the window', () => {
  const ui = uiFixture();

  test('a snapshot taken in the window brings a changed file back when restored from the lineage tree', async () => {
    const { project, name } = await ui.uniqueBox('snap', 'web');
    try {
      await exec(ui, project, name, 'echo original > /root/note');
      const page = await ui.open({ route: `/projects/${project}/boxes/${name}/overview` });
      const detail = new BoxDetailPage(page, name);
      await detail.tab('Snapshots').click();
      const view = new SnapshotsView(page, name);

      await view.snapshotName.fill('Not_Valid');
      await view.page.getByRole('main').getByRole('alert').filter({ hasText: 'lower-case letters' }).waitFor();
      assert.equal(await view.takeButton.isDisabled(), true, 'an invalid name cannot be sent');
      await view.snapshotName.fill('before-change');
      await view.takeButton.click();
      await view.taking.waitFor();
      await view.snapshot('before-change').waitFor({ timeout: 60_000 });
      await view.baseNode('default').waitFor();

      await exec(ui, project, name, 'echo changed > /root/note');
      assert.equal(await exec(ui, project, name, 'cat /root/note'), 'changed\n');

      // With the keyboard alone: the node, its menu, the confirmation.
      await view.snapshot('before-change').focus();
      await page.keyboard.press('Enter');
      const restoreItem = page.getByRole('menuitem', { name: `Restore ${name} to this snapshot` });
      await restoreItem.waitFor();
      const focused = () => restoreItem.evaluate((el) => el === document.activeElement);
      for (let i = 0; i < 5 && !(await focused()); i++) await page.keyboard.press('ArrowDown');
      assert.equal(await focused(), true, 'the arrow keys reach the restore item');
      await page.keyboard.press('Enter');
      await view.dialog(`Restore ${name} to before-change?`).getByText('a running box restarts').waitFor();
      await view.confirm('Restore').focus();
      await page.keyboard.press('Enter');
      // The box now descends from the snapshot: the tree shows it under it.
      await view
        .snapshot('before-change')
        .locator('xpath=ancestor::li[1]')
        .getByText(`${name} (this box)`)
        .waitFor({ timeout: 60_000 });
      const box = (await (await ui.api('GET', `/v1/projects/${project}/boxes/${name}`)).json()) as {
        status: string;
        origin: string;
      };
      assert.equal(box.status, 'running');
      const [taken] = (
        (await (await ui.api('GET', `/v1/projects/${project}/boxes/${name}/snapshots`)).json()) as { items: Snap[] }
      ).items;
      assert.equal(box.origin, taken?.id, "the box's origin is the snapshot it was restored from");
      assert.equal(await exec(ui, project, name, 'cat /root/note'), 'original\n');

      // A snapshot taken elsewhere (the API, the CLI) arrives over the event stream.
      assert.equal(
        (await ui.api('POST', `/v1/projects/${project}/boxes/${name}/snapshots`, { name: 'from-outside' })).status,
        201,
      );
      await view.snapshot('from-outside').waitFor();
    } finally {
      await ui.clear(project);
    }
  });

  test('a fork from a lineage node is a new running box with the snapshot’s file, and the snapshot cannot go while it lives', async () => {
    const project = uniqueName('forks');
    const name = uniqueName('src');
    const copy = uniqueName('copy');
    const baseName = uniqueName('golden');
    await createBoxViaApi(ui, project, name);
    ui.track(project, copy);
    try {
      await exec(ui, project, name, 'echo from-snapshot > /root/marker');
      const snap = (await (
        await ui.api('POST', `/v1/projects/${project}/boxes/${name}/snapshots`, { name: 'golden' })
      ).json()) as Snap;
      await exec(ui, project, name, 'rm /root/marker');

      const page = await ui.open({ route: `/projects/${project}/boxes/${name}/snapshots` });
      const view = new SnapshotsView(page, name);
      await view.act('golden', 'Fork into a new box');
      const dialog = view.dialog('Fork golden into a new box');
      const field = dialog.getByRole('textbox', { name: 'New box name' });
      await field.fill('-bad');
      await dialog.getByRole('alert').filter({ hasText: 'lower-case letters' }).waitFor();
      await field.fill(copy);
      await dialog.getByRole('alert').waitFor({ state: 'detached' });
      await dialog.getByRole('button', { name: 'Fork', exact: true }).click();
      await dialogCloses(dialog);
      await view.boxNode(copy).waitFor();
      await screenshots(page, 'snapshots-tab');

      // The 409 names the fork that needs the snapshot, in the confirmation itself.
      await view.act('golden', 'Delete snapshot');
      const refused = new ConfirmDialog(page, 'Delete the snapshot golden?');
      await refused.button('Delete snapshot').click();
      await refused.refusal.filter({ hasText: copy }).waitFor();
      await refused.cancel();
      assert.equal(
        (await ui.api('GET', `/v1/projects/${project}/snapshots/${snap.id}`)).status,
        200,
        'the snapshot is still there',
      );

      await view.act('golden', 'Make a base');
      const baseDialog = view.dialog('Make a base from golden');
      await baseDialog.getByRole('textbox', { name: 'Base name' }).fill(baseName);
      await baseDialog.getByRole('button', { name: 'Make base', exact: true }).click();
      await dialogCloses(baseDialog);
      await page.goto(`${ui.core().url}/#/bases`);
      await new BasesPage(page)
        .row(baseName)
        .getByRole('cell', { name: `snapshot ${snap.id}` })
        .waitFor();

      await page.goto(`${ui.core().url}/#/projects/${project}/boxes`);
      await new BoxListPage(page).status(copy, 'running').waitFor();
      assert.equal(await exec(ui, project, copy, 'cat /root/marker'), 'from-snapshot\n');
      assert.equal(
        ((await (await ui.api('GET', `/v1/projects/${project}/boxes/${copy}`)).json()) as { origin: string }).origin,
        snap.id,
      );
    } finally {
      await ui.api('DELETE', `/v1/bases/${baseName}`).then((r) => r.arrayBuffer());
      await ui.clear(project);
    }
  });

  test('a rootfs tar dropped on the Bases page is imported with progress and listed', async () => {
    const base = uniqueName('tiny');
    const tar = await tinyRootfsTar(await busyboxBinary(TEST_IMAGE), 'imported\n');
    const made = [base];
    try {
      const page = await ui.open();
      await new AppShell(page).navLink('Bases').click();
      const bases = new BasesPage(page);
      await bases.row('default').waitFor();
      await bases.importName.fill('Bad Name');
      await page.getByRole('main').getByRole('alert').filter({ hasText: 'lower-case letters' }).waitFor();
      await bases.importName.fill(base);
      // Slow the upload (about 2 s) so its progress is there to see.
      const cdp = await page.context().newCDPSession(page);
      await cdp.send('Network.enable');
      await cdp.send('Network.emulateNetworkConditions', {
        offline: false,
        latency: 0,
        downloadThroughput: -1,
        uploadThroughput: Math.ceil(tar.length / 2),
      });
      await bases.dropFile(tar, 'tiny-rootfs.tar');
      await page
        .getByRole('status', { name: `Importing ${base}` })
        .getByText(/^Uploading: .* of 1\.\d MiB/)
        .waitFor();
      await bases.uploadProgress.waitFor();
      await cdp.send('Network.emulateNetworkConditions', {
        offline: false,
        latency: 0,
        downloadThroughput: -1,
        uploadThroughput: -1,
      });
      await bases.row(base).waitFor({ timeout: 60_000 });
      const listed = (
        (await (await ui.api('GET', '/v1/bases')).json()) as { items: { name: string; size_bytes: number | null }[] }
      ).items.find((b) => b.name === base);
      assert.ok(listed, 'the API lists the imported base');
      await screenshots(page, 'bases-page');

      // A base from an image, through the create dialog.
      const fromImage = uniqueName('img');
      made.push(fromImage);
      await bases.createButton.click();
      const dialog = page.getByRole('dialog', { name: 'Create a base' });
      await dialog.getByRole('textbox', { name: 'Name' }).fill(fromImage);
      await dialog.getByRole('radiogroup', { name: 'Made from' }).getByText('An image').click();
      await dialog.getByRole('textbox', { name: 'Image' }).fill(TEST_IMAGE);
      await dialog.getByRole('button', { name: 'Create base', exact: true }).click();
      await dialogCloses(dialog);
      await bases.row(fromImage).getByRole('cell', { name: TEST_IMAGE, exact: true }).waitFor();

      // While a box starts from it, the delete is refused and the 409 names the box.
      const { project, name: user } = await ui.uniqueBox('users', 'user', { base });
      await bases.deleteButton(base).click();
      const confirm = new ConfirmDialog(page, `Delete the base ${base}?`);
      await confirm.button('Delete base').click();
      await confirm.refusal.filter({ hasText: user }).waitFor();
      await confirm.cancel();
      await bases.row(base).waitFor();
      assert.equal((await ui.api('DELETE', `/v1/projects/${project}/boxes/${user}`)).status, 204);

      await bases.deleteButton(base).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Delete base', exact: true }).click();
      await bases.row(base).waitFor({ state: 'detached' });
    } finally {
      for (const b of made) await ui.api('DELETE', `/v1/bases/${b}`).then((r) => r.arrayBuffer());
    }
  });

  test('a base built from a Dockerfile in the window: context folder, build arguments, the log live; a slow build cancelled', async () => {
    const base = uniqueName('built');
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'boxdesk-ui-context-'));
    fs.mkdirSync(path.join(folder, 'ctx'));
    const nonce = Date.now();
    fs.writeFileSync(path.join(folder, 'ctx', 'motd.txt'), `from the folder ${nonce}\n`);
    try {
      const page = await ui.open({ route: '/bases' });
      const bases = new BasesPage(page);
      await bases.row('default').waitFor();
      await bases.buildButton.click();
      const d = bases.buildDialog();
      await d.name.fill(base);
      await d.dockerfile.fill(
        `FROM boxdesk/default\nARG WHO\nCOPY motd.txt /etc/motd\nRUN cat /etc/motd && echo "for $WHO"\n`,
      );
      await d.buildArgs.fill('WHO=window');
      await d.contextFolder.setInputFiles(path.join(folder, 'ctx'));
      await d.dialog.getByText('1 file: COPY takes them').waitFor();
      await d.build.click();
      await d.log.getByText(`from the folder ${nonce}`).waitFor({ timeout: 60_000 });
      await d.status.getByText(`Built: base ${base} is ready`).waitFor({ timeout: 60_000 });
      const log = await d.log.innerText();
      assert.ok(log.indexOf('Step 4/4 RUN') < log.indexOf(`from the folder ${nonce}`), 'the log is in order');
      assert.match(log, /^for window$/m);
      await screenshots(page, 'base-build-dialog');
      await d.close.click();
      await bases.row(base).waitFor();

      // A slow build, cancelled from the dialog: nothing of it is kept.
      const slow = uniqueName('slow');
      await bases.buildButton.click();
      await d.name.fill(slow);
      await d.dockerfile.fill(`FROM boxdesk/default\nRUN echo waiting-${nonce} && sleep 60\n`);
      await d.build.click();
      await d.log.getByText(`waiting-${nonce}`).waitFor({ timeout: 60_000 });
      await d.cancel.click();
      await d.status.getByText('Cancelled: nothing was kept').waitFor({ timeout: 30_000 });
      const names = ((await (await ui.api('GET', '/v1/bases')).json()) as { items: { name: string }[] }).items;
      assert.ok(!names.some((b) => b.name === slow), 'a cancelled build makes no base');
    } finally {
      await ui.api('DELETE', `/v1/bases/${base}`).then((r) => r.arrayBuffer());
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });
});
