import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Box } from '../shared/schemas/box';
import { AppShell } from './pages/app-shell';
import { BoxFormDialog } from './pages/box-form-dialog';
import { BoxListPage } from './pages/box-list-page';
import { SettingsPage } from './pages/settings-page';
import { screenshots, uiFixture } from './support/ui-fixture';

describe('secrets in the window', () => {
  const ui = uiFixture();

  test('a secret is added in Settings (its value hidden and never shown), given to a new box, and removed', async () => {
    const VALUE = `sk-e2e-${Date.now().toString(36)}`;
    const page = await ui.open();
    await new AppShell(page).navLink('Settings').click();
    const settings = new SettingsPage(page);
    await settings.addSecret.click();
    const dialog = settings.secretDialog();
    assert.equal(await dialog.value.getAttribute('type'), 'password', 'the value is typed in a password field');
    await dialog.name.fill('Open_AI');
    assert.match((await dialog.name.getAttribute('aria-invalid')) ?? '', /true/, 'a bad name is flagged as you type');
    await dialog.name.fill('openai');
    await dialog.value.fill(VALUE);
    await dialog.hosts.fill('https://api.openai.com/');
    await dialog.dialog.getByText(/a host name like api\.example\.com/).waitFor();
    await dialog.hosts.fill('api.openai.com\n*.openai.azure.com');
    await dialog.dialog.getByText('Boxes given it see a placeholder in $OPENAI').waitFor();
    await dialog.submit.click();
    await dialog.dialog.waitFor({ state: 'detached' });

    const row = settings.secretRow('openai');
    await row.getByText('api.openai.com, *.openai.azure.com').waitFor();
    await row.getByText('Authorization: Bearer').waitFor();
    await row.getByText('$OPENAI').waitFor();
    assert.equal(await page.getByText(VALUE).count(), 0, 'the page never shows the value');
    assert.ok(!(await page.content()).includes(VALUE));
    // The Secrets panel sits below the engine's and the store's: the picture is of it.
    await settings.secrets.evaluate((table) => table.scrollIntoView({ block: 'center' }));
    await screenshots(page, 'settings-secrets', { untilGone: page.getByText('Added openai') });

    // A second one of the same name: the server's 409 lands at the name field.
    await settings.addSecret.click();
    await dialog.name.fill('openai');
    await dialog.value.fill('other');
    await dialog.hosts.fill('a.example.com');
    await dialog.submit.click();
    await dialog.dialog.getByRole('alert').filter({ hasText: 'openai' }).waitFor();
    await dialog.dialog.getByRole('button', { name: 'Cancel' }).click();

    // Picked in the create form, the box holds it (the representation names it, never its value).
    const { project, name } = ui.uniqueNames('secrets', 'agent');
    await new AppShell(page).switchProject(project);
    const list = new BoxListPage(page);
    await list.createButton.click();
    const form = new BoxFormDialog(page);
    await form.name.fill(name);
    await form.pickSecret('openai');
    await form.submit.click();
    await form.dialog.waitFor({ state: 'detached', timeout: 60_000 });
    const box = (await (await ui.api('GET', `/v1/projects/${project}/boxes/${name}`)).json()) as Box;
    assert.deepEqual(box.secrets, ['openai']);

    // Held by the box, it cannot go; once the box is gone, it can.
    await new AppShell(page).navLink('Settings').click();
    await row.getByRole('button', { name: 'Remove openai' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Remove secret' }).click();
    await page
      .getByRole('dialog')
      .getByText(/is given to .*agent/)
      .waitFor();
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    assert.equal((await ui.api('DELETE', `/v1/projects/${project}/boxes/${name}`)).status, 204);
    await row.getByRole('button', { name: 'Remove openai' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Remove secret' }).click();
    await row.waitFor({ state: 'detached' });
    const left = (await (await ui.api('GET', '/v1/secrets')).json()) as { items: unknown[] };
    assert.deepEqual(left.items, []);
  });
});
