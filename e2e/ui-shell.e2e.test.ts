import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { TEST_IMAGE } from '../test-support/core-process';
import { AppShell } from './pages/app-shell';
import { BasesPage } from './pages/bases-page';
import { BoxListPage } from './pages/box-list-page';
import { SignInPage } from './pages/sign-in-page';
import { createBoxViaApi, uiFixture, uniqueName } from './support/ui-fixture';

describe('signing in to the UI served by the headless core', () => {
  const ui = uiFixture();

  test('the printed sign-in URL signs in, clears the address bar, and survives a reload', async () => {
    const printed = /sign in at (http:\/\/\S+)/.exec(ui.core().output());
    assert.ok(printed, `the core prints a sign-in URL:\n${ui.core().output()}`);
    assert.equal(new URL(printed[1]!).hash, `#token=${encodeURIComponent(ui.core().token)}`);

    const page = await ui.open();
    const shell = new AppShell(page);
    await new BoxListPage(page).heading('default').waitFor();
    assert.ok(!page.url().includes('token'), `the token is gone from the address bar: ${page.url()}`);
    await shell.engine(/^Engine: healthy/).waitFor();

    await page.reload();
    await new BoxListPage(page).heading('default').waitFor();

    await shell.navLink('Bases').click();
    const bases = new BasesPage(page);
    await bases.row('default').getByRole('cell', { name: TEST_IMAGE, exact: true }).waitFor();

    await shell.signOutButton.click();
    await new SignInPage(page).tokenField.waitFor();
    assert.equal(await bases.table.count(), 0, 'signing out hides the bases');
  });

  test('the paste form is the fallback; a wrong token shows the 401 detail at the field', async () => {
    const res = await fetch(`${ui.core().url}/v1/bases`, { headers: { authorization: 'Bearer not-a-real-token' } });
    const { detail } = (await res.json()) as { detail: string };
    assert.equal(res.status, 401);

    const page = await ui.open({ signedIn: false });
    const signIn = new SignInPage(page);
    await signIn.signIn('not-a-real-token');
    await signIn.fieldError().filter({ hasText: detail }).waitFor();
    assert.equal(await signIn.tokenField.getAttribute('aria-invalid'), 'true');

    await signIn.signIn(ui.core().token);
    await new BoxListPage(page).heading('default').waitFor();
  });

  test('a revoked token sends the window back to sign in, saying why', async () => {
    const made = await ui.api('POST', '/v1/tokens', { name: 'soon-revoked', scopes: ['read'] });
    const { id, token } = (await made.json()) as { id: string; token: string };
    const page = await ui.open({ signedIn: false });
    const signIn = new SignInPage(page);
    await signIn.signIn(token);
    const list = new BoxListPage(page);
    await list.heading('default').waitFor();

    assert.equal((await ui.api('DELETE', `/v1/tokens/${id}`)).status, 204);
    // The next request gets a 401 (a reload makes several).
    await page.reload();
    await signIn.signedOutNotice.filter({ hasText: 'revoked' }).waitFor();
    await signIn.tokenField.waitFor();
  });

  test('the version is in the sidebar and the palette jumps between pages', async () => {
    const { version } = (await (await fetch(`${ui.core().url}/version`)).json()) as { version: string };
    const page = await ui.open();
    const shell = new AppShell(page);
    await shell.nav.getByText(`Boxdesk v${version}`).waitFor();
    await shell.runCommand('settings', 'Go to Settings');
    await page.getByRole('heading', { name: 'Settings', level: 2 }).waitFor();
  });
});

describe('the header', () => {
  const ui = uiFixture();

  test("the theme button flips the theme, and the palette's Create a box opens the form", async () => {
    const page = await ui.open({ colorScheme: 'dark' });
    const shell = new AppShell(page);
    await new BoxListPage(page).heading('default').waitFor();
    const scheme = () => page.evaluate(() => document.documentElement.getAttribute('data-mantine-color-scheme'));
    assert.equal(await scheme(), 'dark', 'follows the system (dark here)');
    await shell.themeToggle().click();
    assert.equal(await scheme(), 'light');
    await shell.themeToggle().click();
    assert.equal(await scheme(), 'dark');

    await shell.runCommand('create', 'Create a box');
    await page
      .getByRole('dialog', { name: 'Create a box' })
      .getByRole('textbox', { name: 'Name', exact: true })
      .waitFor();
  });

  test('a project where a box appears (here through the API) is offered by the project switcher', async () => {
    const page = await ui.open();
    const shell = new AppShell(page);
    await new BoxListPage(page).heading('default').waitFor();
    const project = uniqueName('seen');
    await createBoxViaApi(ui, project, 'one');
    await shell.project.fill('');
    await page.getByRole('option', { name: project }).click();
    await new BoxListPage(page).heading(project).waitFor();
    await new BoxListPage(page).row('one').waitFor();
  });
});

describe('the UI when the container engine is unreachable', () => {
  const ui = uiFixture({ env: { DOCKER_HOST: 'unix:///nonexistent/boxdesk-e2e-docker.sock' } });

  test('says the engine is unreachable and why', async () => {
    const page = await ui.open();
    const shell = new AppShell(page);
    await shell.engine(/^Engine: unreachable\. \S+/).waitFor();
    assert.equal(await shell.engine(/^Engine: healthy/).count(), 0);
  });
});

describe('the UI when the default base cannot be pulled (first run offline)', () => {
  const ui = uiFixture({ args: ['--default-base', 'boxdesk-missing/nothing:1'] });

  test('the header says the default base is missing and what to do, not "healthy"', async () => {
    const page = await ui.open();
    const shell = new AppShell(page);
    await shell.engine(/^Default base: missing\. .*--default-base/).waitFor({ timeout: 30_000 });
    assert.equal(await shell.engine(/^Engine: healthy/).count(), 0);
  });
});
