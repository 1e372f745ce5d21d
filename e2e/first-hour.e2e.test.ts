import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { AppShell } from './pages/app-shell';
import { BoxFormDialog } from './pages/box-form-dialog';
import { BoxListPage } from './pages/box-list-page';
import { FilesTab } from './pages/files-tab';
import { PublishView } from './pages/publish-view';
import { ServicesPage } from './pages/services-page';
import { dialogCloses, screenshots, uiFixture, uniqueName } from './support/ui-fixture';

/** The colour an element is drawn in, as [r, g, b]. */
async function colorOf(locator: Locator): Promise<[number, number, number]> {
  const css = await locator.evaluate((el) => getComputedStyle(el).color);
  const [r, g, b] = (css.match(/\d+(\.\d+)?/g) ?? []).map(Number);
  return [r!, g!, b!];
}

/** A click on a link that opens a new tab, and that tab once it shows `text`. */
async function openedTab(page: Page, link: Locator, text: string): Promise<Page> {
  const [tab] = await Promise.all([page.waitForEvent('popup'), link.click()]);
  await tab.getByText(text).waitFor();
  return tab;
}

/**
 * The README's first hour, as a new user walks it: the core `npm start` runs headless (the same
 * command and flags), its printed sign-in address, then create → console → files → publish →
 * deploy → delete, all in the window. BOXDESK_SCREENSHOTS=1 saves each step, light and dark, in
 * docs/screenshots/first-hour-*.png.
 */
describe('the first hour, from the README', () => {
  const ui = uiFixture({ browserArgs: ['--host-resolver-rules=MAP *.localhost 127.0.0.1'] });

  test('sign in with the printed link, create a box, use its console and files, publish it, deploy a service, delete the box', async () => {
    const project = 'default';
    const name = uniqueName('web');
    const service = uniqueName('site');
    ui.track(project, name);

    // Sign in: the address the core printed (the token in its fragment).
    const printed = /(http:\/\/127\.0\.0\.1:\d+\/#token=\S+)/.exec(ui.core().output());
    assert.ok(printed, `the core prints a sign-in address:\n${ui.core().output()}`);
    // A fresh tab of a browser that is not signed in (the fixture's page sits on the sign-in form).
    const page = await (await ui.open({ signedIn: false })).context().newPage();
    await page.goto(printed[1]!);
    const list = new BoxListPage(page);
    await list.heading(project).waitFor();

    // Create a box in the form.
    await list.createButton.click();
    const form = new BoxFormDialog(page);
    await form.name.fill(name);
    await form.submit.click();
    await dialogCloses(form.dialog);
    await list.status(name, 'running').waitFor();
    await page.mouse.move(0, 0);
    await screenshots(page, 'first-hour-boxes');

    // Dark mode: the row's action icons keep their colours (console indigo, stop yellow, delete red).
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.waitForFunction(() => document.documentElement.dataset.mantineColorScheme === 'dark');
    const [cr, , cb] = await colorOf(list.consoleLink(name));
    const [sr, sg, sb] = await colorOf(list.rowAction(name, 'Stop'));
    const [dr, dg, db] = await colorOf(list.rowAction(name, 'Delete'));
    assert.ok(cb - cr > 60, `the console icon is indigo in dark mode: rgb(${cr}, ${cb})`);
    assert.ok(Math.min(sr, sg) - sb > 80, `the stop icon is yellow in dark mode: rgb(${sr}, ${sg}, ${sb})`);
    assert.ok(dr - Math.max(dg, db) > 60, `the delete icon is red in dark mode: rgb(${dr}, ${dg}, ${db})`);
    await page.emulateMedia({ colorScheme: 'light' });

    // Console: a command and its output; it also starts the web server the box will publish.
    const term = await list.openConsole(name);
    await term.type('echo "first-$((6*7))"; printf "<h1>first hour</h1>" > /workspace/index.html\n');
    await term.waitForText(/^first-42$/m);
    await term.type('httpd -p 8080 -h /workspace && echo serving\n');
    await term.waitForText(/^serving$/m);
    await screenshots(page, 'first-hour-console');

    // Files: /workspace holds what the console wrote; a file dropped in uploads.
    const files = new FilesTab(page);
    await files.tab().click();
    await files.folder('/workspace').waitFor();
    await files.entry('index.html').waitFor();
    await files.drop('/workspace', [{ name: 'notes.txt', content: 'written in the first hour\n' }]);
    await files
      .uploadStatus('/workspace/notes.txt')
      .filter({ hasText: /^uploaded/ })
      .waitFor();
    await files.entry('notes.txt').waitFor();
    await screenshots(page, 'first-hour-files');

    // Publish port 8080 with token access (the default); the link opens it signed in.
    const publish = new PublishView(page, name);
    await publish.tab.click();
    await publish.port.fill('8080');
    await publish.publishButton.click();
    await publish.signInNote.waitFor();
    await page.mouse.move(0, 0);
    await screenshots(page, 'first-hour-publish');
    const site = await openedTab(page, publish.urlLink(), 'first hour');
    assert.doesNotMatch(site.url(), /token|boxdesk_code/);
    await site.close();

    // Deploy a service; its URL (token access too) opens signed in, served by the live color.
    await new AppShell(page).navLink('Services').click();
    const services = new ServicesPage(page);
    await services.createButton.click();
    await services.field('Name').fill(service);
    await services.field('Port').fill('8080');
    await services
      .field('Command')
      .fill('mkdir -p /srv && echo service-live > /srv/index.html && exec httpd -f -p 8080 -h /srv');
    await services.createForm.getByRole('button', { name: 'Create and deploy' }).click();
    await services.createForm.waitFor({ state: 'detached' });
    await services.live(service, 'blue').waitFor({ timeout: 30_000 });
    await page.mouse.move(0, 0);
    await screenshots(page, 'first-hour-service');
    await (await openedTab(page, services.urlLink(service), 'service-live')).close();

    // Delete the box, after saying yes.
    await new AppShell(page).navLink('Boxes').click();
    await list.rowAction(name, 'Delete').click();
    await list.confirm('Delete box').click();
    await list.row(name).waitFor({ state: 'detached', timeout: 30_000 });
    assert.equal((await ui.api('GET', `/v1/projects/${project}/boxes/${name}`)).status, 404);
  });
});
