import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Box } from '../shared/schemas/box';
import { describe, test } from 'node:test';
import { AppShell } from './pages/app-shell';
import { BoxDetailPage } from './pages/box-detail-page';
import { BoxFormDialog } from './pages/box-form-dialog';
import { BoxListPage } from './pages/box-list-page';
import { PublishView } from './pages/publish-view';
import { createBoxViaApi, dialogCloses, screenshots, uiFixture, uniqueName } from './support/ui-fixture';

describe('managing boxes in the window', () => {
  const ui = uiFixture();

  test('a box created through the form shows up running, with its tags and environment', async () => {
    const { project, name } = ui.uniqueNames('form', 'web');
    // Neighbours, so the list (and its screenshot) shows more than one state.
    await Promise.all([
      createBoxViaApi(ui, project, 'api', { tags: { team: 'red', tier: 'backend' } }),
      createBoxViaApi(ui, project, 'worker', { tags: { team: 'blue' } }),
    ]);
    assert.equal((await ui.api('POST', `/v1/projects/${project}/boxes/worker/stop`)).status, 200);
    const page = await ui.open();
    const shell = new AppShell(page);
    await shell.switchProject(project);
    const list = new BoxListPage(page);
    await list.heading(project).waitFor();
    await list.status('worker', 'stopped').waitFor();

    await list.createButton.click();
    const form = new BoxFormDialog(page);
    await form.name.fill(name);
    await form.cpus.fill('1');
    await form.memory.fill('256');
    await form.addPair('variable', 'GREETING', 'hello');
    await form.addPair('tag', 'team', 'blue');
    await screenshots(page, 'create-dialog');
    await form.submit.click();
    await dialogCloses(form.dialog);

    await list.status(name, 'running').waitFor();
    const res = await ui.api('GET', `/v1/projects/${project}/boxes/${name}`);
    const box = (await res.json()) as {
      status: string;
      config: { ram_mb: number };
      environment: Record<string, string>;
      tags: Record<string, string>;
    };
    assert.equal(box.status, 'running');
    assert.equal(box.config.ram_mb, 256);
    assert.deepEqual(box.environment, { GREETING: 'hello' });
    assert.deepEqual(box.tags, { team: 'blue' });
    await screenshots(page, 'box-list');

    await list.row(name).getByRole('link', { name, exact: true }).click();
    const detail = new BoxDetailPage(page, name);
    await detail.heading().waitFor();
    await detail.field('Memory').getByText('256 MiB').waitFor();
    await screenshots(page, 'box-detail');
  });

  test("an invalid name is flagged at the field as you type, and the server's own error lands there too", async () => {
    const { project, name: taken } = await ui.uniqueBox('names', 'taken');
    const page = await ui.open({ project });
    const list = new BoxListPage(page);
    await list.row(taken).waitFor();

    await list.createButton.click();
    const form = new BoxFormDialog(page);
    await form.name.fill('Bad_Name');
    assert.match((await form.fieldError(form.name)) ?? '', /lower-case letters, digits and hyphens/);
    await form.name.fill('good-name');
    assert.equal(await form.fieldError(form.name), null, 'a valid name clears the error');

    // The schema's rule passes; the server says the name is taken, at the name field.
    await form.name.fill(taken);
    await form.submit.click();
    await form.dialog.getByRole('alert').filter({ hasText: taken }).waitFor();
    assert.match((await form.fieldError(form.name)) ?? '', /already|exists|taken/i);
    const listed = (await (await ui.api('GET', `/v1/projects/${project}/boxes`)).json()) as { items: unknown[] };
    assert.equal(listed.items.length, 1, 'nothing was created');
  });

  test('a box stopped from the CLI turns stopped in the list without a reload, and resumes from its row', async () => {
    const { project, name } = await ui.uniqueBox('live', 'cli');
    const page = await ui.open({ project });
    const list = new BoxListPage(page);
    await list.status(name, 'running').waitFor();

    const requests: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    const stop = await ui.cli('-p', project, 'stop', name);
    assert.equal(stop.code, 0, stop.stderr);
    await list.status(name, 'stopped').waitFor();
    assert.deepEqual(
      requests.filter((u) => u.includes('/boxes')),
      [],
      'the change came over the event stream, not a refetch',
    );

    await list.rowAction(name, 'Resume').click();
    await list.status(name, 'running').waitFor({ timeout: 30_000 });
  });

  test('three boxes selected and deleted together, after a confirmation', async () => {
    const project = uniqueName('bulk');
    const names = [uniqueName('a'), uniqueName('b'), uniqueName('c')];
    const keep = uniqueName('keep');
    await Promise.all([...names, keep].map((n) => createBoxViaApi(ui, project, n)));
    const page = await ui.open({ project });
    const list = new BoxListPage(page);
    await list.row(keep).waitFor();

    for (const n of names) await list.select(n).check();
    await list.bulkBar.getByText('3 selected').waitFor();
    await list.bulk('Delete selected').click();
    await list.confirm('Delete 3 boxes').click();
    for (const n of names) await list.row(n).waitFor({ state: 'detached', timeout: 60_000 });
    await list.row(keep).waitFor();

    const left = (await (await ui.api('GET', `/v1/projects/${project}/boxes`)).json()) as { items: { name: string }[] };
    assert.deepEqual(
      left.items.map((b) => b.name),
      [keep],
    );
  });

  test('a fork made through the form starts from a copy of its source, with progress shown meanwhile', async () => {
    const project = uniqueName('fork');
    const source = uniqueName('src');
    const copy = uniqueName('copy');
    await createBoxViaApi(ui, project, source);
    ui.track(project, copy);
    const wrote = await ui.api('POST', `/v1/projects/${project}/boxes/${source}/exec`, {
      command: ['sh', '-c', 'echo forked-content > /root/marker'],
    });
    assert.equal(((await wrote.json()) as { exit_code: number }).exit_code, 0);

    const page = await ui.open({ route: `/projects/${project}/boxes` });
    const list = new BoxListPage(page);
    await list.status(source, 'running').waitFor();
    await list.createButton.click();
    const form = new BoxFormDialog(page);
    await form.name.fill(copy);
    await form.dialog.getByRole('radiogroup', { name: 'Start from' }).getByText('A copy of a box (fork)').click();
    await form.dialog.getByRole('combobox', { name: 'Fork source' }).click();
    await page.getByRole('option', { name: source }).click();
    await form.submit.click();
    await form.progress.waitFor();
    await dialogCloses(form.dialog);
    await list.status(copy, 'running').waitFor();

    const read = await ui.api('POST', `/v1/projects/${project}/boxes/${copy}/exec`, {
      command: ['cat', '/root/marker'],
    });
    assert.equal(((await read.json()) as { stdout: string }).stdout, 'forked-content\n');
  });

  test('editing a box changes its memory, tags, clocks and Internet access at once; Pause puts it to sleep, Wake wakes it', async () => {
    const { project, name } = await ui.uniqueBox('edit', 'ed', { tags: { team: 'blue' } });
    const page = await ui.open({ route: `/projects/${project}/boxes/${name}/overview` });
    const detail = new BoxDetailPage(page, name);
    await detail.field('Memory').getByText('1024 MiB').waitFor();
    await detail.button('Edit').click();
    const form = new BoxFormDialog(page, `Edit ${name}`);
    assert.equal(await form.name.isDisabled(), true, 'the name cannot change');
    await form.memory.fill('512');
    await form.addPair('tag', 'tier', 'web');
    await form.clock('Pause after … idle', 10, 'minutes');
    await form.clock('Delete … after it stops', 1, 'days');
    await screenshots(page, 'box-lifecycle-form');
    await form.setInternet('Only these hosts');
    await form.allowedHosts.fill('10.9.0.0/16\n10.9.0.0/40');
    assert.match((await form.fieldError(form.allowedHosts)) ?? '', /10\.9\.0\.0\/40: .*prefix length/);
    await form.allowedHosts.fill('10.9.0.0/16\n192.0.2.7:443');
    await form.submit.click();
    await form.dialog.waitFor({ state: 'hidden' });
    await detail.field('Memory').getByText('512 MiB').waitFor();
    await detail
      .field('Tags')
      .getByText(/tier=web/)
      .waitFor();
    await detail
      .nextChange()
      .getByText(/Pauses in (9|10) minutes if left idle/)
      .waitFor();
    await detail
      .field('Network')
      .getByText('Internet: only 10.9.0.0/16, 192.0.2.7:443; this computer: closed')
      .waitFor();
    const box = (await (await ui.api('GET', `/v1/projects/${project}/boxes/${name}`)).json()) as Box;
    assert.equal(box.config.ram_mb, 512);
    assert.deepEqual(box.tags, { team: 'blue', tier: 'web' });
    assert.deepEqual(box.lifecycle, { auto_pause_s: 600, auto_stop_s: null, auto_delete_s: 86400, expires_at: null });
    assert.deepEqual(box.network, { egress: 'allowlist', allow: ['10.9.0.0/16', '192.0.2.7:443'], host: false });
    await detail.button('Pause').click();
    await page.getByText('paused · wakes on use').waitFor();
    await screenshots(page, 'box-paused');
    await detail.button('Wake').click();
    await detail.button('Pause').waitFor();
  });

  test('the command palette opens a console in a box', async () => {
    const { project, name } = await ui.uniqueBox('palette', 'pal');
    const page = await ui.open({ route: `/projects/${project}/boxes` });
    const list = new BoxListPage(page);
    await list.status(name, 'running').waitFor();
    await new AppShell(page).runCommand(name, `Console in ${name}`);
    await page.getByRole('status', { name: 'Console 1: open' }).waitFor();
    assert.match(page.url(), new RegExp(`/projects/${project}/boxes/${name}/console$`));
  });

  test('a box can be made with the keyboard alone, and the tag filter finds it', async () => {
    const { project, name } = ui.uniqueNames('keys', 'kb');
    await createBoxViaApi(ui, project, uniqueName('other'), { tags: { team: 'red' } });
    const page = await ui.open({ route: `/projects/${project}/boxes` });
    const list = new BoxListPage(page);
    await list.count.getByText('1 box').waitFor();

    await list.createButton.focus();
    await page.keyboard.press('Enter');
    const form = new BoxFormDialog(page);
    await form.name.waitFor();
    assert.equal(await form.name.evaluate((el) => el === document.activeElement), true, 'the name field has the focus');
    await page.keyboard.type(name);
    await page.keyboard.press('Enter');
    await dialogCloses(form.dialog);
    await list.status(name, 'running').waitFor();

    // A tag set from outside arrives over the event stream and becomes a filter choice.
    assert.equal(
      (await ui.api('PUT', `/v1/projects/${project}/boxes/${name}`, { tags: { team: 'blue' } })).status,
      200,
    );
    await list.tagFilter.click();
    await page.getByRole('option', { name: 'team:blue' }).click();
    await list.count.getByText('1 of 2 boxes').waitFor();
    await list.row(name).waitFor();
  });

  test('search and the status filter narrow the list', async () => {
    const project = uniqueName('filter');
    const [one, two] = [uniqueName('alpha'), uniqueName('beta')];
    await Promise.all([createBoxViaApi(ui, project, one), createBoxViaApi(ui, project, two)]);
    assert.equal((await ui.api('POST', `/v1/projects/${project}/boxes/${two}/stop`)).status, 200);
    const page = await ui.open({ project });
    const list = new BoxListPage(page);
    await list.status(two, 'stopped').waitFor();

    await list.search.fill('alpha');
    await list.row(two).waitFor({ state: 'detached' });
    await list.row(one).waitFor();
    await list.search.fill('');
    await list.statusFilter.click();
    await page.getByRole('option', { name: 'stopped' }).click();
    await list.row(one).waitFor({ state: 'detached' });
    await list.row(two).waitFor();
    await list.count.getByText('1 of 2 boxes').waitFor();
  });

  test('a box from a folder in the window: the folder sent, the log live, its ports published, the box named; a slow one cancelled', async () => {
    const { project, name } = ui.uniqueNames('fold', 'app');
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'boxdesk-ui-up-'));
    const folder = (dir: string, postCreate: string) => {
      const files: Record<string, string> = {
        '.devcontainer/devcontainer.json': JSON.stringify({
          image: 'boxdesk/default',
          containerEnv: { WHO: 'window' },
          forwardPorts: [8080, 9090],
          postCreateCommand: postCreate,
          features: { 'ghcr.io/devcontainers/features/node:1': {} },
        }),
        'src/app.txt': 'the app\n',
        '.gitignore': 'node_modules/\n',
        'node_modules/dep/index.js': 'left out\n',
      };
      for (const [file, text] of Object.entries(files)) {
        fs.mkdirSync(path.dirname(path.join(root, dir, file)), { recursive: true });
        fs.writeFileSync(path.join(root, dir, file), text);
      }
      return path.join(root, dir);
    };
    try {
      const page = await ui.open({ project });
      const list = new BoxListPage(page);
      await list.heading(project).waitFor();
      await list.fromFolderButton.click();
      const d = list.fromFolderDialog();
      await d.folder.setInputFiles(folder('web', 'echo made for $WHO && cat src/app.txt'));
      await d.chosen
        .filter({ hasText: /^web: 3 files, .* \(1 left out by \.gitignore, \.boxdeskignore or \.git\)$/ })
        .waitFor();
      await d.name.fill(name);
      await d.submit.click();
      await d.status.getByText(`Box ${name} is ready`).waitFor({ timeout: 60_000 });
      const log = await d.log.innerText();
      assert.match(log, /note: \.devcontainer\/devcontainer\.json: "features" is ignored/);
      assert.match(log, /^made for window\nthe app$/m, "the command's output is in the log");
      assert.match(log, /port 9090 published at http:\/\/9090\./);
      await d.dialog.getByRole('link', { name: `Open box ${name}` }).waitFor();
      await screenshots(page, 'box-from-folder');
      const box = (await (await ui.api('GET', `/v1/projects/${project}/boxes/${name}`)).json()) as Box;
      assert.equal(box.port, 8080);
      assert.deepEqual(
        box.port_urls?.map((p) => p.port),
        [9090],
      );
      const ls = await ui.api('POST', `/v1/projects/${project}/boxes/${name}/exec`, {
        command: ['sh', '-c', 'cd /workspace && find . -type f | sort'],
      });
      assert.equal(
        ((await ls.json()) as { stdout: string }).stdout,
        './.devcontainer/devcontainer.json\n./.gitignore\n./src/app.txt\n',
      );

      // A slow command, cancelled from the dialog: the answer stops, and so does the command.
      await d.folder.setInputFiles(folder('slow', 'echo waiting && sleep 60'));
      await d.name.fill(`${name}-slow`);
      await d.submit.click();
      await d.log.getByText('waiting').waitFor({ timeout: 60_000 });
      await d.cancel.click();
      await d.status.getByText('Cancelled', { exact: true }).waitFor();
      await d.close.click();
      await dialogCloses(d.dialog);

      // The box's Publish tab shows both ports' URLs, and the form its other port.
      const tab = await ui.open({ route: `/projects/${project}/boxes/${name}/publish` });
      const publish = new PublishView(tab, name);
      await publish.urlSection.getByRole('link', { name: /^Open http:\/\/9090\./ }).waitFor();
      assert.equal(await publish.port.inputValue(), '8080');
      await publish.form.getByText('9090', { exact: true }).waitFor();
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
