import { describe, test } from 'node:test';
import { BoxDetailPage } from './pages/box-detail-page';
import { JobsView } from './pages/jobs-view';
import { uiFixture } from './support/ui-fixture';

describe("a box's Jobs tab", () => {
  const ui = uiFixture();

  test('a job started in the window shows its output live, then its exit code', async () => {
    const { project, name } = await ui.uniqueBox('jobs', 'ui');
    const page = await ui.open({ route: `/projects/${project}/boxes/${name}/overview` });
    await new BoxDetailPage(page, name).tab('Jobs').click();
    const jobs = new JobsView(page);
    const command = 'echo first; while [ ! -f /tmp/go ]; do sleep 0.1; done; echo second; exit 5';
    await jobs.command.fill(command);
    await jobs.start.click();

    // The first line shows while the job still waits: the output is followed, not fetched at the end.
    await jobs.output.filter({ hasText: 'first' }).waitFor({ timeout: 15_000 });
    await jobs.row(`/bin/sh -c ${command}`).getByText('running').waitFor();
    await ui.api('POST', `/v1/projects/${project}/boxes/${name}/exec`, { command: ['touch', '/tmp/go'] });
    await jobs.output.filter({ hasText: /first\s+second/ }).waitFor({ timeout: 15_000 });
    const row = jobs.row(`/bin/sh -c ${command}`);
    await row.getByText('exited').waitFor({ timeout: 15_000 });
    await row.getByRole('cell', { name: '5', exact: true }).waitFor();
  });

  test('a job started elsewhere appears, and the window kills it', async () => {
    const { project, name } = await ui.uniqueBox('jobs', 'kill');
    const page = await ui.open({ route: `/projects/${project}/boxes/${name}/jobs` });
    const jobs = new JobsView(page);
    await page.getByText('No jobs yet').waitFor({ timeout: 15_000 });
    await ui.api('POST', `/v1/projects/${project}/boxes/${name}/exec`, {
      command: ['sleep', '3001'],
      background: true,
    });
    await jobs.row('sleep 3001').getByText('running').waitFor({ timeout: 15_000 });
    await jobs.kill('sleep 3001').click();
    await jobs.row('sleep 3001').getByText('killed').waitFor({ timeout: 15_000 });
  });
});
