import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { BoxListPage } from './pages/box-list-page';
import { PublishView } from './pages/publish-view';
import { createBoxViaApi, screenshots, uiFixture, uniqueName, type UiFixture } from './support/ui-fixture';

type ApiBox = {
  status: string;
  url: string | null;
  url_settings: { auth: string } | null;
  published_domains: string[] | null;
  port: number | null;
};

async function getBox(ui: UiFixture, project: string, name: string): Promise<ApiBox> {
  const res = await ui.api('GET', `/v1/projects/${project}/boxes/${name}`);
  assert.equal(res.status, 200);
  return (await res.json()) as ApiBox;
}

async function waitRunning(ui: UiFixture, project: string, name: string): Promise<void> {
  for (let i = 0; i < 240; i++) {
    if ((await getBox(ui, project, name)).status === 'running') return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${name} did not reach running`);
}

describe('publishing a box from the window', () => {
  // *.localhost may not resolve in headless Chromium: map it to the loopback, so a real tab loads the preview.
  const ui = uiFixture({ browserArgs: ['--host-resolver-rules=MAP *.localhost 127.0.0.1'] });

  test('publish a box serving on 8080, open it in a real tab, see the globe live, unpublish', async () => {
    const { project, name } = await ui.uniqueBox('pub', 'site');
    await waitRunning(ui, project, name);
    // busybox httpd daemonizes without -f: the exec returns while the server keeps serving on 0.0.0.0:8080.
    const exec = await ui.api('POST', `/v1/projects/${project}/boxes/${name}/exec`, {
      command: ['sh', '-c', 'mkdir -p /www; echo hello-from-box > /www/index.html; httpd -p 8080 -h /www'],
    });
    assert.equal(exec.status, 200);
    assert.equal(((await exec.json()) as { exit_code: number }).exit_code, 0);

    const page = await ui.open({ project });
    const list = new BoxListPage(page);
    await list.row(name).waitFor();
    assert.equal(await list.globe(name).count(), 0, 'no globe before publishing');

    await list.row(name).getByRole('link', { name, exact: true }).click();
    const publish = new PublishView(page, name);
    await publish.tab.click();
    // A port out of range is flagged at the field as you type.
    await publish.port.fill('70000');
    assert.match((await publish.fieldError(publish.port)) ?? '', /1 to 65535/);
    await publish.port.fill('8080');
    assert.equal(await publish.fieldError(publish.port), null);
    await publish.chooseAccess('Public');
    await publish.publishButton.click();

    const link = publish.urlLink();
    await link.waitFor();
    const box = await getBox(ui, project, name);
    assert.ok(box.url, 'the API says the box is published');
    assert.equal(box.url_settings?.auth, 'public');
    assert.equal(box.port, 8080);
    assert.equal(await link.getAttribute('href'), box.url);
    assert.equal(await link.getAttribute('target'), '_blank');
    assert.match((await link.getAttribute('rel')) ?? '', /noopener/);
    await publish.updateButton.waitFor();

    // The link opens the preview in a new tab: the page the box serves, through the proxy.
    const [tab] = await Promise.all([page.waitForEvent('popup'), link.click()]);
    await tab.getByText('hello-from-box').waitFor();
    assert.equal(new URL(tab.url()).host, new URL(box.url).host);
    await tab.close();

    // The row carries the globe, named with the URL.
    await page.goBack();
    await page.goBack();
    await list.globe(name, `published at ${box.url}`).waitFor();

    // Unpublished from the CLI: the globe goes without a reload.
    const cli = await ui.cli('unpublish', name, '--project', project);
    assert.equal(cli.code, 0, cli.stderr);
    await list.globe(name).waitFor({ state: 'detached' });
  });

  test('token access: the plain URL asks for a token, the link in the window signs in with a one-time code; domains are checked at the field; unpublish from the window', async () => {
    const project = uniqueName('tok');
    const name = uniqueName('app');
    const other = uniqueName('other');
    await Promise.all([createBoxViaApi(ui, project, name), createBoxViaApi(ui, project, other)]);
    await waitRunning(ui, project, name);
    const exec = await ui.api('POST', `/v1/projects/${project}/boxes/${name}/exec`, {
      command: ['sh', '-c', 'mkdir -p /www; echo hello-from-box > /www/index.html; httpd -p 8080 -h /www'],
    });
    assert.equal(exec.status, 200);
    const taken = `${other}.localhost`;

    const page = await ui.open({ project });
    const list = new BoxListPage(page);
    await list.row(other).waitFor();
    // Another box published through the API: its globe appears live.
    const otherPub = await ui.api('POST', `/v1/projects/${project}/boxes/${other}/publish`, {
      port: 80,
      auth: 'public',
      domains: [taken],
    });
    assert.equal(otherPub.status, 200, await otherPub.text());
    await list.globe(other, /^published at http:\/\//).waitFor();

    await list.row(name).getByRole('link', { name, exact: true }).click();
    const publish = new PublishView(page, name);
    await publish.tab.click();
    await publish.port.fill('8080');
    // The shared hostname rule, as you type.
    await publish.addDomains('bad_host');
    assert.match((await publish.fieldError(publish.domains)) ?? '', /bad_host is not a hostname/);
    await publish.domains.press('Backspace');
    assert.equal(await publish.fieldError(publish.domains), null);
    // A domain another box has: the API's 409 lands at the field, and nothing is published.
    await publish.addDomains(taken);
    await publish.publishButton.click();
    assert.match(
      (await publish.page.getByRole('alert').filter({ hasText: other }).first().textContent()) ?? '',
      new RegExp(other),
    );
    assert.equal((await getBox(ui, project, name)).url, null);

    await publish.domains.press('Backspace');
    await publish.addDomains(`${name}.localhost`);
    await publish.chooseAccess('Token');
    await publish.publishButton.click();
    await publish.signInNote.waitFor();
    const box = await getBox(ui, project, name);
    assert.equal(box.url_settings?.auth, 'token');
    assert.deepEqual(box.published_domains, [`${name}.localhost`]);
    await page
      .getByRole('alert')
      .filter({ hasText: `Published ${name}` })
      .waitFor({ state: 'detached' });
    await screenshots(page, 'publish');

    // The plain URL (copied, typed) carries no credential: the proxy refuses it (in a real tab).
    const plainTab = await page.context().newPage();
    const plain = await plainTab.goto(box.url!);
    assert.equal(plain?.status(), 401);
    assert.match(await plainTab.content(), /box open/);
    await plainTab.close();
    // The link in the window opens a one-time link from the core: signed in, and no token or code left in the address.
    const popup = page.waitForEvent('popup');
    const opened = page.context().waitForEvent('request', {
      predicate: (r) => r.url().startsWith(`${box.url}/?boxdesk_code=`),
    });
    await publish.urlLink(box.url!).click();
    const tab = await popup;
    await tab.getByText('hello-from-box').waitFor();
    assert.equal(tab.url(), `${box.url}/`);
    const link = (await opened).url();
    assert.ok(!link.includes(ui.core().token), 'the admin token is never in a URL');
    await tab.close();
    // The code worked once: in another browser (no cookie) the same link is a 401.
    const stranger = await ui.open({ signedIn: false, isolated: true });
    assert.equal((await stranger.goto(link))?.status(), 401);

    await publish.unpublishButton.click();
    await publish.publishButton.waitFor();
    await publish.urlLink().waitFor({ state: 'detached' });
    const after = await getBox(ui, project, name);
    assert.equal(after.url, null);
    assert.equal(after.published_domains, null);
    await page.goBack();
    await page.goBack();
    await list.row(name).waitFor();
    assert.equal(await list.globe(name).count(), 0);
  });
});
