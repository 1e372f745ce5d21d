import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { BoxListPage } from './pages/box-list-page';
import { widenBoxList } from '../test-support/many-boxes';
import { uiFixture } from './support/ui-fixture';

describe('a list of 1,000 boxes', () => {
  const ui = uiFixture();

  test('renders only the rows in view, scrolls to the last box, and still updates live', async () => {
    const { project, name: real } = await ui.uniqueBox('many', 'real');
    const page = await ui.open({ viewport: { width: 1280, height: 900 } });
    await widenBoxList(page, ui.core().url, project, 1000);
    await page.goto(`${ui.core().url}/#/projects/${project}/boxes`);
    const list = new BoxListPage(page);
    await list.count.getByText('1000 boxes').waitFor();

    const rendered = await list.renderedRows().count();
    assert.ok(rendered > 5 && rendered < 80, `only the rows in view (and a few more) are in the DOM: ${rendered}`);
    assert.equal(await list.table.getAttribute('aria-rowcount'), '1001', 'screen readers learn the full count');

    // Scroll to the end with the keyboard-free way a wheel would: the last box comes into view.
    await list.scroller().evaluate((el) => el.scrollTo({ top: el.scrollHeight }));
    await list.row('many-0999').waitFor();
    assert.ok((await list.renderedRows().count()) < 80, 'still only a window of rows');

    // The real box sorts last ("real-…" after "many-…") and changes status from outside: its row follows.
    await list.status(real, 'running').waitFor();
    assert.equal((await ui.api('POST', `/v1/projects/${project}/boxes/${real}/stop`)).status, 200);
    await list.status(real, 'stopped').waitFor();

    // Selecting all selects the thousand.
    await list.selectAll.check();
    await list.bulkBar.getByText('1000 selected').waitFor();
  });
});
