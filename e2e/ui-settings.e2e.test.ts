import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AppShell } from './pages/app-shell';
import { BasesPage } from './pages/bases-page';
import { SettingsPage } from './pages/settings-page';
import { screenshots, uiFixture } from './support/ui-fixture';

describe('settings', () => {
  const ui = uiFixture();

  test('a token is created with its scopes and project, its secret copied once, then revoked', async () => {
    const page = await ui.open({ clipboard: true });
    await new AppShell(page).navLink('Settings').click();
    const settings = new SettingsPage(page);
    await settings.tokens.waitFor();

    await settings.createToken.click();
    const dialog = settings.createDialog();
    await dialog.name.fill('ci-reader');
    await dialog.scope('exec').check();
    await dialog.project.fill('ci');
    await dialog.submit.click();
    const secret = ((await dialog.secret.textContent()) ?? '').trim();
    assert.ok(secret.length > 20, 'the secret is shown');
    await dialog.copy.click();
    await dialog.dialog.getByRole('button', { name: 'Copied' }).waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), secret, 'the clipboard holds the secret');

    // The secret works, with exactly the scopes and project chosen.
    const me = await fetch(`${ui.core().url}/v1/projects/ci/boxes`, { headers: { authorization: `Bearer ${secret}` } });
    assert.equal(me.status, 200);
    const other = await fetch(`${ui.core().url}/v1/projects/elsewhere/boxes`, {
      headers: { authorization: `Bearer ${secret}` },
    });
    assert.equal(other.status, 403);

    await dialog.done.click();
    const row = settings.tokenRow('ci-reader');
    await row.getByText('ci', { exact: true }).waitFor();
    await row.getByText('exec', { exact: true }).waitFor();
    assert.equal(await row.getByText(secret).count(), 0, 'the list never shows the secret');
    // The page as it opens: the engine, the box agent and the preview proxy (the tokens are further down).
    await page.evaluate(() => window.scrollTo(0, 0));
    await screenshots(page, 'settings');

    // The token this window signed in with is marked, and revoking it says what happens and the way back.
    const own = page.getByRole('row').filter({ has: page.getByText('this window', { exact: true }) });
    await own.getByRole('button', { name: /^Revoke / }).click();
    await page
      .getByRole('dialog')
      .getByText(/signed out at once.*--new-admin-token/)
      .waitFor();
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('dialog').waitFor({ state: 'detached' });

    await row.getByRole('button', { name: 'Revoke ci-reader' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke token' }).click();
    await row.waitFor({ state: 'detached' });
    const after = await fetch(`${ui.core().url}/v1/projects/ci/boxes`, {
      headers: { authorization: `Bearer ${secret}` },
    });
    assert.equal(after.status, 401, 'the revoked token is refused');
  });

  test('the engine, the data dir and the theme', async () => {
    const page = await ui.open({ route: `/settings` });
    const settings = new SettingsPage(page);
    await settings.engineField('Data directory').getByText(ui.core().dataDir).waitFor();
    await settings.engineField('Engine state').getByText('reachable').waitFor();
    const system = (await (await ui.api('GET', '/v1/system')).json()) as {
      engine: { endpoint: { url: string; found_by: string } };
    };
    await settings.engineField('Engine at').getByText(system.engine.endpoint.url).waitFor();
    await settings.engineField('Engine at').getByText(`found by ${system.engine.endpoint.found_by}`).waitFor();
    // One engine: the region "local", the default, up.
    await settings.regionRow('local (default)').getByText('up', { exact: true }).waitFor();
    await settings
      .engineField('Box agent')
      .getByText(/^in every new box \(version \S+\)/)
      .waitFor();
    await settings
      .engineField('Preview proxy')
      .getByText(/^the edge \(version \S+\) serves published boxes natively/)
      .waitFor();
    // The copy-on-write store (test cores run the copy store unless told otherwise).
    await settings
      .storageField('Driver')
      .getByText(/full copies|copy-on-write/)
      .waitFor();
    await settings.storageField('Path').getByText('/', { exact: false }).waitFor();

    const scheme = () => page.evaluate(() => document.documentElement.getAttribute('data-mantine-color-scheme'));
    assert.equal(await scheme(), 'light', 'follows the system (light here)');
    await settings.chooseTheme('Dark');
    assert.equal(await scheme(), 'dark');
    await page.reload();
    await settings.engine.waitFor();
    assert.equal(await scheme(), 'dark', 'the choice is kept');
    await settings.chooseTheme('Follow the system');
    assert.equal(await scheme(), 'light');
  });

  test("a base's warm count is set in its Edit dialog, and Settings shows its warm pool", async () => {
    const page = await ui.open({ route: '/bases' });
    const bases = new BasesPage(page);
    try {
      await bases.editButton('default').click();
      const edit = bases.editDialog('default');
      await edit.warm.fill('40');
      await edit.alert.getByText('A whole number from 0 to 32').waitFor();
      await edit.warm.fill('1');
      await edit.save.click();
      await edit.dialog.waitFor({ state: 'detached' });
      await bases.row('default').getByRole('cell', { name: '1', exact: true }).waitFor();
      const { items } = (await (await ui.api('GET', '/v1/bases')).json()) as {
        items: { name: string; warm: number }[];
      };
      assert.equal(items.find((b) => b.name === 'default')?.warm, 1, 'the core keeps it');

      await new AppShell(page).navLink('Settings').click();
      const settings = new SettingsPage(page);
      await settings.poolRow('default').waitFor();
    } finally {
      await ui.api('PUT', '/v1/bases/default', { warm: 0 });
    }
  });
});
