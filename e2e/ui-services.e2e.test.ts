import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { previewRequest } from '../test-support/preview-http';
import { AppShell } from './pages/app-shell';
import { ServicesPage } from './pages/services-page';
import { createBoxViaApi, screenshots, uiFixture, uniqueName, type UiFixture } from './support/ui-fixture';

/**
 * The service serves /srv, but its health check asks for /srv/ready, which
 * the test writes into the new color's box when it has looked at the steps:
 * so a deployment waits at "starting" exactly as long as the test needs.
 */
const SERVE = 'mkdir -p /srv && echo v$VERSION > /srv/index.html && exec httpd -f -p 8080 -h /srv';

type ApiService = {
  url: string;
  active_deployment: { color: string; status: string; environment: Record<string, string> } | null;
};

async function getService(ui: UiFixture, project: string, name: string): Promise<ApiService> {
  const res = await ui.api('GET', `/v1/projects/${project}/services/${name}`);
  assert.equal(res.status, 200, await res.clone().text());
  return (await res.json()) as ApiService;
}

/** Writes /srv/ready into the color's box until that color is live (a box being replaced may lose it: write again). */
async function release(ui: UiFixture, project: string, name: string, color: 'blue' | 'green'): Promise<void> {
  for (let i = 0; i < 400; i++) {
    const s = await getService(ui, project, name);
    if (s.active_deployment?.color === color) return;
    const res = await ui.api('POST', `/v1/projects/${project}/boxes/${name}-${color}/exec`, {
      command: ['sh', '-c', 'mkdir -p /srv && touch /srv/ready'],
    });
    await res.arrayBuffer();
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${name} never went live on ${color}`);
}

async function serves(url: string): Promise<string> {
  const u = new URL(url);
  const res = await previewRequest(Number(u.port), u.host, '/');
  assert.equal(res.status, 200, res.body);
  return res.body.trim();
}

describe('services from the window', () => {
  const ui = uiFixture({ browserArgs: ['--host-resolver-rules=MAP *.localhost 127.0.0.1'] });

  test('create a service, deploy v2 and roll back to v1 from the window, with the steps and the timeline live', async () => {
    const project = uniqueName('svc');
    const name = uniqueName('web');
    try {
      await createDeployRollback(ui, project, name);
    } finally {
      await ui
        .api('DELETE', `/v1/projects/${project}/services/${name}`)
        .then((r) => r.arrayBuffer())
        .catch(() => undefined);
    }
  });

  test("the core's refusal is shown at the field it names: a box already has the name of one of the service's colors", async () => {
    const project = uniqueName('svcerr');
    const name = uniqueName('taken');
    await createBoxViaApi(ui, project, `${name}-blue`);
    const page = await ui.open({ project });
    await new AppShell(page).navLink('Services').click();
    const services = new ServicesPage(page);
    await services.empty.waitFor();
    await services.createButton.click();
    await services.field('Name').fill(name);
    await services.field('Port').fill('8080');
    await services.submitCreateExpectingRefusal();
    assert.match(
      (await services.fieldError(services.field('Name'))) ?? '',
      /taken/,
      `the refusal is at the name field; the form shows: ${await services.createForm.innerText()}`,
    );
    // Nothing was created; the dialog stays open to pick another name.
    assert.equal(await services.createForm.count(), 1);
    const list = await ui.api('GET', `/v1/projects/${project}/services`);
    assert.deepEqual(((await list.json()) as { items: unknown[] }).items, []);

    // Switching project on the Services page shows that project's services.
    await services.createForm.getByRole('button', { name: 'Cancel' }).click();
    const other = uniqueName('svcother');
    await new AppShell(page).switchProject(other);
    await page.waitForURL(`**/projects/${other}/services`);
    await services.empty.filter({ hasText: other }).waitFor();
  });
});

async function createDeployRollback(ui: UiFixture, project: string, name: string): Promise<void> {
  const page = await ui.open({ project });
  await new AppShell(page).navLink('Services').click();
  const services = new ServicesPage(page);
  await services.heading.waitFor();
  await services.empty.waitFor();

  // Create: the name is checked as you type by the schema's rule.
  await services.createButton.click();
  const nameField = services.field('Name');
  await nameField.fill('Web_1');
  assert.match((await services.fieldError(nameField)) ?? '', /lower-case letters/);
  await nameField.fill(name);
  assert.equal(await services.fieldError(nameField), null);
  await services.field('Port').fill('70000');
  assert.match((await services.fieldError(services.field('Port'))) ?? '', /1 to 65535/);
  await services.field('Port').fill('8080');
  await services.field('Command').fill(SERVE);
  await services.addVariable(services.createForm, 'VERSION', '1');
  await services.field('Path').fill('/ready');
  await services.field('Interval (s)').fill('0.2');
  await services.chooseAccess('Public');
  await screenshots(page, 'services-create');
  await services.createForm.getByRole('button', { name: 'Create and deploy' }).click();
  await services.createForm.waitFor({ state: 'detached' });

  // The first deployment waits at its health check: the page shows it starting, blue, nothing live yet.
  await services
    .progress(name)
    .filter({ hasText: /Deploying to blue: starting/ })
    .waitFor();
  await services.live(name, 'none').waitFor();
  // Nothing runs yet: the card says so, and shows the command as the next deploy's, not as live.
  await services.card(name).getByText('Live: nothing yet').waitFor();
  await services
    .card(name)
    .getByText(/^Next deploy: /)
    .waitFor();
  await services
    .entries(name)
    .and(page.getByRole('listitem', { name: /^Deployment dep_\w+: starting on blue$/ }))
    .waitFor();
  await release(ui, project, name, 'blue');
  await services.live(name, 'blue').waitFor();
  await services.progress(name).waitFor({ state: 'detached' });
  await services
    .card(name)
    .getByText(/^Live: .* from base /)
    .waitFor();
  assert.equal(
    await services
      .card(name)
      .getByText(/^Next deploy: /)
      .count(),
    0,
    'the spec is what runs',
  );
  const service = await getService(ui, project, name);
  assert.equal(await services.urlLink(name).getAttribute('href'), service.url);
  assert.equal(await serves(service.url), 'v1');

  // Deploy v2 with a changed variable: green starts beside blue, blue serves until green passes.
  await services.deployButton(name).click();
  const deployForm = services.deployForm(name);
  await services.addVariable(deployForm, 'VERSION', '2');
  await deployForm.getByRole('button', { name: 'Deploy', exact: true }).click();
  await deployForm.waitFor({ state: 'detached' });
  await services
    .progress(name)
    .filter({ hasText: /Deploying to green: starting/ })
    .waitFor();
  assert.equal(await services.live(name, 'blue').count(), 1, 'blue stays live while green starts');
  assert.equal(await serves(service.url), 'v1');
  await screenshots(page, 'services-deploying');
  await release(ui, project, name, 'green');
  await services.live(name, 'green').waitFor();
  assert.equal(await serves(service.url), 'v2');
  const entries = services.entries(name);
  await services.entry(name, 0, /^Deployment dep_\w+: live on green$/).waitFor();
  await services.entry(name, 1, /^Deployment dep_\w+: superseded on blue$/).waitFor();

  // The link opens the URL in a new tab, served by the live color.
  const [tab] = await Promise.all([page.waitForEvent('popup'), services.urlLink(name).click()]);
  await tab.getByText('v2').waitFor();
  await tab.close();

  // Roll back: blue again, v1, and the timeline says so.
  await services.rollbackButton(name).click();
  await services
    .progress(name)
    .filter({ hasText: /Rolling back to blue/ })
    .waitFor();
  await release(ui, project, name, 'blue');
  await services.live(name, 'blue').waitFor();
  assert.equal(await serves(service.url), 'v1');
  await services.entry(name, 0, /^Rollback dep_\w+: live on blue$/).waitFor();
  await services.entry(name, 1, /^Deployment dep_\w+: rolled back on green$/).waitFor();
  assert.equal(await entries.count(), 3);
  await page.mouse.move(0, 0); // no tooltip over the page
  await screenshots(page, 'services');

  // The live color's box has a link to its detail page.
  await services.boxLink(name, `${name}-blue`).click();
  await page
    .getByRole('heading', { name: `${name}-blue` })
    .first()
    .waitFor();
  await page.goBack();

  // A deploy from the CLI shows up without a reload.
  const cli = await ui.cli('deploy', name, '-e', 'VERSION=3', '--project', project);
  assert.equal(cli.code, 0, cli.stderr);
  await services
    .progress(name)
    .filter({ hasText: /Deploying to green/ })
    .waitFor();
  await release(ui, project, name, 'green');
  await services.live(name, 'green').waitFor();
  assert.equal(await entries.count(), 4);

  // Delete, with confirmation: the card goes and the URL stops answering.
  await services.deleteButton(name).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete service' }).click();
  await services.card(name).waitFor({ state: 'detached' });
  await services.empty.waitFor();
  const u = new URL(service.url);
  assert.equal((await previewRequest(Number(u.port), u.host, '/')).status, 404);
}
