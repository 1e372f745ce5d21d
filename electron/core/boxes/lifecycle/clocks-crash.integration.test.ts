import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, test } from 'node:test';
import type { Box } from '../../../../shared/schemas/box';
import { api, startCoreProcess, tempDataDir, type CoreProcess } from '../../../../test-support/core-process';
import { waitFor } from '../../../../test-support/docker';

// The idle clocks across a kill -9 of the core: the last use is kept in SQLite, so the core
// that starts again neither resets the clock (the box would stop later) nor fires it early.

const dataDir = tempDataDir();
let core: CoreProcess;
const P = '/v1/projects/clockcrash/boxes';

after(async () => {
  await api(core, 'DELETE', `${P}/keep`);
  await core.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const getBox = async (): Promise<Box> => (await (await api(core, 'GET', `${P}/keep`)).json()) as Box;

test('a kill -9 of the core neither resets nor fires early the idle stop of a box', async () => {
  core = await startCoreProcess({ dataDir });
  const created = await api(core, 'POST', P, { name: 'keep', lifecycle: { auto_stop_s: 6 } });
  assert.equal(created.status, 201, await created.clone().text());
  // A use: its time is written to the store at once (then at most once a second).
  assert.equal((await api(core, 'POST', `${P}/keep/exec`, { command: ['true'] })).status, 200);
  const before = await getBox();
  assert.equal(before.next_change?.action, 'stop');
  assert.equal(Date.parse(before.next_change.at) - Date.parse(before.last_used_at!), 6000);

  await core.kill();
  core = await startCoreProcess({ dataDir });
  const after = await getBox();
  assert.equal(after.last_used_at, before.last_used_at, 'the last use survived the crash');
  // A slow start may come after the deadline: then the box has stopped (below), else it waits for it.
  if (after.status === 'running') assert.deepEqual(after.next_change, before.next_change, 'the same deadline');

  const stopped = await waitFor(
    async () => {
      const box = await getBox();
      return box.status === 'stopped' ? box : null;
    },
    20_000,
    'the idle stop',
  );
  assert.match(stopped.status_reason ?? '', /after 6 s idle \(auto_stop_s\)/);
  assert.ok(
    Date.parse(stopped.updated_at) >= Date.parse(before.next_change.at),
    'stopped no earlier than its deadline',
  );
});
