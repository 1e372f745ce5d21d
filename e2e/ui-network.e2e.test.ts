import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Box } from '../shared/schemas/box';
import { startOutsideHost, type OutsideHost } from '../test-support/outside-host';
import { BoxDetailPage } from './pages/box-detail-page';
import { NetworkView } from './pages/network-view';
import { dialogCloses, screenshots, uiFixture } from './support/ui-fixture';

/** The outside host is a network namespace: making one needs root (the core itself never does). */
const skip = process.getuid?.() === 0 ? false : 'standing up the outside host (ip netns) needs root';

describe("a box's Network tab", { skip }, () => {
  const ui = uiFixture();
  let outside: OutsideHost;
  before(async () => {
    outside = await startOutsideHost();
  });
  after(() => outside?.close());

  test('the policy in words, its connections live as the box makes them, and an edit that applies at once', async () => {
    const [open, closed] = outside.addresses;
    const network = { egress: 'allowlist', allow: [`${open}:80`] };
    const { project, name } = await ui.uniqueBox('net', 'ui', { network });
    const boxPath = `/v1/projects/${project}/boxes/${name}`;
    const sh = (script: string) => ui.api('POST', `${boxPath}/exec`, { command: ['sh', '-c', script] });
    const page = await ui.open({ route: `/projects/${project}/boxes/${name}/overview` });
    await new BoxDetailPage(page, name).tab('Network').click();
    const view = new NetworkView(page);
    await view.policy.getByText('Internet: only these hosts').waitFor({ timeout: 15_000 });
    await view.policy.getByLabel('Allowed hosts').getByText(`${open}:80`).waitFor();
    await view.policy.getByText('This computer: closed').waitFor();
    await page.getByText('No connections recorded yet.').waitFor();

    // Made from outside the window (an exec): the rows come by the event stream.
    await sh(`nc -w 2 ${closed} 8443 </dev/null; printf 'GET / HTTP/1.0\\r\\n\\r\\n' | nc -w 3 ${open} 80`);
    const denied = view.rows(closed);
    await denied.getByText('denied').waitFor({ timeout: 15_000 });
    await denied.getByRole('cell', { name: '8443', exact: true }).waitFor();
    const allowed = view.rows(open);
    await allowed.getByText('allowed').waitFor({ timeout: 15_000 });
    assert.match((await allowed.getByRole('cell').nth(3).textContent()) ?? '', /\d+ B|KiB/);
    await screenshots(page, 'network-tab');

    // Internet off, from the tab: saved and in force for the next connection.
    await view.edit.click();
    await view.chooseInternet('Off');
    await view.dialog.getByRole('button', { name: 'Save' }).click();
    await dialogCloses(view.dialog);
    await view.policy.getByText('Internet: off').waitFor({ timeout: 15_000 });
    const box = (await (await ui.api('GET', boxPath)).json()) as Box;
    assert.equal(box.network.egress, 'none');
    await sh(`printf 'GET / HTTP/1.0\\r\\n\\r\\n' | nc -w 2 ${open} 80 </dev/null`);
    await allowed.getByText('denied').waitFor({ timeout: 15_000 });
  });
});
