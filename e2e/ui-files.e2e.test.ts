import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FilesTab } from './pages/files-tab';
import { downloaded, screenshots, uiFixture, type UiFixture } from './support/ui-fixture';

function filesUrl(project: string, name: string, route = ''): string {
  return `/v1/projects/${project}/boxes/${name}/files${route}`;
}

async function putFile(
  ui: UiFixture,
  project: string,
  name: string,
  path: string,
  content: string,
  mode = '0644',
): Promise<void> {
  const core = ui.core();
  const res = await fetch(`${core.url}${filesUrl(project, name)}?path=${encodeURIComponent(path)}&mode=${mode}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${core.token}`, 'content-type': 'application/octet-stream' },
    body: content,
  });
  assert.equal(res.status, 200, await res.text());
}

async function readFile(
  ui: UiFixture,
  project: string,
  name: string,
  path: string,
): Promise<{ status: number; text: string }> {
  const res = await ui.api('GET', `${filesUrl(project, name)}?path=${encodeURIComponent(path)}`);
  return { status: res.status, text: await res.text() };
}

describe('the Files tab in the window', () => {
  const ui = uiFixture();

  test('drop files into a folder, browse by breadcrumbs, edit and save one, download it back, and see it as added since the base', async () => {
    const { project, name } = await ui.uniqueBox('files', 'fs');
    await putFile(ui, project, name, '/srv/app/config/settings.ini', '[server]\nport = 8080\n', '0640');
    const ln = await ui.api('POST', `/v1/projects/${project}/boxes/${name}/exec`, {
      command: ['ln', '-s', 'app/config', '/srv/cfg'],
    });
    assert.equal(ln.status, 200, await ln.text());
    const page = await ui.open({ route: `/projects/${project}/boxes/${name}/files` });
    const files = new FilesTab(page);

    // The tab opens at /workspace, where exec and console start; the root is a breadcrumb away.
    await files.folder('/workspace').waitFor();
    await files.crumb('/').click();
    // Into /srv/app/config: a click, then Enter on a focused entry.
    await files.folder('/').waitFor();
    await files.openFolder('srv', '/srv');
    // A symlink shows its target, and opening it follows it.
    await files.row('cfg').getByText('→ app/config').waitFor();
    await files.openFolder('cfg', '/srv/app/config');
    await files.entry('settings.ini').waitFor();
    await files.crumb('/srv').click();
    await files.entry('app').focus();
    await page.keyboard.press('Enter');
    await files.openFolder('config', '/srv/app/config');

    // Back up by the breadcrumbs, then down again; Backspace goes up one.
    await files.crumb('/srv').click();
    await files.folder('/srv').waitFor();
    await files.openFolder('app', '/srv/app');
    await files.entry('config').focus();
    await page.keyboard.press('Backspace');
    await files.folder('/srv').waitFor();
    await files.entry('app').click();

    // Two files dropped onto /srv/app, each with its own progress line.
    await files.drop('/srv/app', [
      { name: 'notes.txt', content: 'dropped by the test\n' },
      { name: 'second.txt', content: 'x'.repeat(5000) },
    ]);
    await files
      .uploadStatus('/srv/app/notes.txt')
      .filter({ hasText: /^uploaded/ })
      .waitFor({ timeout: 30_000 });
    await files
      .uploadStatus('/srv/app/second.txt')
      .filter({ hasText: /^uploaded · 4\.9 KiB of 4\.9 KiB/ })
      .waitFor({ timeout: 30_000 });
    assert.deepEqual(await readFile(ui, project, name, '/srv/app/notes.txt'), {
      status: 200,
      text: 'dropped by the test\n',
    });
    assert.equal((await readFile(ui, project, name, '/srv/app/second.txt')).text, 'x'.repeat(5000));
    await files.entry('notes.txt').waitFor();
    await screenshots(page, 'files');

    // Edit settings.ini (mode 0640) and save with Ctrl+S: the bytes change, the mode stays.
    await files.entry('config').click();
    await files.entry('settings.ini').click();
    const editor = files.editor('/srv/app/config/settings.ini');
    await editor.filter({ hasText: 'port = 8080' }).waitFor();
    await editor.click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type('host = 0.0.0.0');
    await files.unsavedBadge().waitFor();
    await screenshots(page, 'files-editor');
    // Leaving with unsaved changes asks first; keeping them stays in the editor.
    await files.button('Back to the folder').click();
    const discard = page.getByRole('dialog', { name: 'Discard unsaved changes?' });
    await discard.getByRole('button', { name: 'Keep editing' }).click();
    await discard.waitFor({ state: 'hidden' });
    await editor.click();
    await page.keyboard.press('Control+s');
    await files.unsavedBadge().waitFor({ state: 'hidden' });
    const expected = '[server]\nport = 8080\nhost = 0.0.0.0';
    assert.deepEqual(await readFile(ui, project, name, '/srv/app/config/settings.ini'), {
      status: 200,
      text: expected,
    });
    const stat = (await (
      await ui.api('GET', `${filesUrl(project, name, '/stat')}?path=/srv/app/config/settings.ini`)
    ).json()) as { mode: string; size: number };
    assert.equal(stat.mode, '0640', 'saving keeps the mode');
    assert.equal(stat.size, expected.length);

    // Download it back: the same bytes, under the file's name.
    const [download] = await Promise.all([page.waitForEvent('download'), files.button('Download').click()]);
    assert.equal(download.suggestedFilename(), 'settings.ini');
    assert.equal((await downloaded(download)).toString('utf8'), expected);

    // What changed since the base: the dropped files are added; a click opens one.
    await files.showView('Changed since base');
    await files.change('/srv/app/notes.txt').filter({ hasText: 'added' }).waitFor();
    await page.getByRole('textbox', { name: 'Filter changed paths' }).fill('notes');
    assert.equal(await files.changes().getByRole('button').count(), 1, 'the filter leaves the one file');
    await screenshots(page, 'files-changes');
    await files.changes().getByRole('button', { name: '/srv/app/notes.txt' }).click();
    await files.editor('/srv/app/notes.txt').filter({ hasText: 'dropped by the test' }).waitFor();
  });

  test('a stopped box can be browsed, a folder made, a file read and one deleted after a confirmation', async () => {
    const { project, name } = await ui.uniqueBox('files', 'off');
    await putFile(ui, project, name, '/data/hello.txt', 'hello while stopped\n');
    await putFile(ui, project, name, '/data/old.log', 'old\n');
    await putFile(ui, project, name, '/data/big.log', 'line of a big log\n'.repeat(70_000));
    await putFile(ui, project, name, '/data/blob.bin', 'PK\u0000\u0003 not text');
    assert.equal((await ui.api('POST', `/v1/projects/${project}/boxes/${name}/stop`)).status, 200);
    const page = await ui.open({ route: `/projects/${project}/boxes/${name}/overview` });
    const files = new FilesTab(page);
    await page.getByText('stopped', { exact: true }).first().waitFor();
    await files.tab().click();

    await files.folder('/workspace').waitFor();
    await files.crumb('/').click();
    await files.openFolder('data', '/data');
    await files.entry('hello.txt').click();
    await files.editor('/data/hello.txt').filter({ hasText: 'hello while stopped' }).waitFor();
    await files.button('Save').waitFor();
    await files.button('Back to the folder').click();

    // Over 1 MiB: its start, read-only, no Save. Not UTF-8 text: a note, no editor.
    await files.entry('big.log').click();
    await page.getByRole('note').filter({ hasText: 'Read-only: this file is larger than 1 MiB' }).waitFor();
    await files.editor('/data/big.log').filter({ hasText: 'line of a big log' }).waitFor();
    assert.equal(await files.editor('/data/big.log').getAttribute('contenteditable'), 'false');
    assert.equal(await files.button('Save').count(), 0);
    await files.button('Back to the folder').click();
    await files.entry('blob.bin').click();
    await page.getByRole('note').filter({ hasText: 'This file is not text' }).waitFor();
    assert.equal(await files.editor('/data/blob.bin').count(), 0);
    await files.button('Back to the folder').click();

    await files.button('New folder').click();
    const dialog = page.getByRole('dialog', { name: 'New folder in /data' });
    await dialog.getByRole('textbox', { name: 'Folder name' }).fill('a/b');
    await dialog.getByText('One folder at a time: no slashes.').waitFor();
    await dialog.getByRole('textbox', { name: 'Folder name' }).fill('reports');
    await dialog.getByRole('button', { name: 'Create folder' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await files.entry('reports').waitFor();
    const made = (await (await ui.api('GET', `${filesUrl(project, name, '/stat')}?path=/data/reports`)).json()) as {
      type: string;
    };
    assert.equal(made.type, 'dir');

    // The picker uploads too, into a stopped box.
    const [chooser] = await Promise.all([page.waitForEvent('filechooser'), files.button('Upload files').click()]);
    await chooser.setFiles({
      name: 'picked.txt',
      mimeType: 'text/plain',
      buffer: Buffer.from('picked while stopped\n'),
    });
    await files
      .uploadStatus('/data/picked.txt')
      .filter({ hasText: /^uploaded/ })
      .waitFor({ timeout: 30_000 });
    assert.deepEqual(await readFile(ui, project, name, '/data/picked.txt'), {
      status: 200,
      text: 'picked while stopped\n',
    });
    await files.entry('picked.txt').waitFor();

    await files.rowAction('Delete', 'old.log').click();
    const confirm = page.getByRole('dialog', { name: 'Delete /data/old.log?' });
    await confirm.getByRole('button', { name: 'Delete', exact: true }).click();
    await files.entry('old.log').waitFor({ state: 'detached' });
    assert.equal((await readFile(ui, project, name, '/data/old.log')).status, 404);
    assert.equal(
      ((await (await ui.api('GET', `/v1/projects/${project}/boxes/${name}`)).json()) as { status: string }).status,
      'stopped',
      'the box stayed stopped',
    );
  });
});
