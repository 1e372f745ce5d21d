import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Box } from '../../../../shared/schemas/box';
import type { RegionList } from '../../../../shared/schemas/regions';
import type { Volume } from '../../../../shared/schemas/volumes';
import { boxCli, ok } from '../../../../test-support/cli-runner';
import { PrivateEngine, startTwoRegionCore } from '../../../../test-support/private-engine';
import { json } from '../../../../test-support/services';
import { deleteBoxes, type TestCore } from '../../../../test-support/test-core';

// Two regions: `local` (the shared engine) and `far` (a second dockerd in its own network
// namespace, its containers unreachable from the host, started empty: the base's image is copied
// there at the first create).
const skip = PrivateEngine.unavailableReason();
if (skip) console.warn(`SKIPPED regions tests: ${skip}`);
process.env.BOXDESK_NETWORK_POOL = '172.31.128.0/17';

const P = '/v1/projects/regions';
let far: PrivateEngine;
let t: TestCore;
const started = { far: false, core: false };

before(async () => {
  if (skip) return;
  far = new PrivateEngine(['--bip', '172.31.250.1/24']);
  await far.start();
  started.far = true;
  t = await startTwoRegionCore(far);
  started.core = true;
});
after(async () => {
  if (started.core) await deleteBoxes(t, `${P}/boxes`).finally(() => t.close());
  if (started.far) await far.destroy();
});

const box = boxCli(() => t, { project: 'regions' });
const regions = async () => (await json<RegionList>(t.api('GET', '/v1/regions'), 200)).items;
const exec = (box: string) => t.api('POST', `${P}/boxes/${box}/exec`, { command: ['echo', `hello from ${box}`] });

async function until(what: string, ok: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 150; i++) {
    if (await ok()) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  assert.fail(`${what} did not happen within 30 s`);
}

test(
  'a box in each region: GET /v1/regions counts them, a fork stays in its region, an unknown region is a 400',
  { skip: skip ?? false },
  async () => {
    await json<Box>(t.api('POST', `${P}/boxes`, { name: 'home' }), 201);
    const away = await json<Box>(t.api('POST', `${P}/boxes`, { name: 'away', config: { region: 'far' } }), 201);
    assert.equal(away.config.region, 'far');
    assert.equal((await json<{ stdout: string }>(exec('away'), 200)).stdout, 'hello from away\n');

    const [local, remote] = await regions();
    assert.deepEqual([local!.name, remote!.name], ['local', 'far']);
    assert.deepEqual([local!.boxes, remote!.boxes], [1, 1]);
    assert.ok(remote!.engine.up && remote!.cpus! > 0 && remote!.memory_bytes! > 0, JSON.stringify(remote));

    const fork = await t.api('POST', `${P}/boxes`, { name: 'copy', fork: 'away', config: { region: 'local' } });
    assert.equal(fork.status, 409);
    assert.match(((await fork.json()) as { detail: string }).detail, /in its source's region \("far"\)/);
    const sameRegion = await json<Box>(t.api('POST', `${P}/boxes`, { name: 'copy', fork: 'away' }), 201);
    assert.equal(sameRegion.config.region, 'far');

    const moved = await t.api('PUT', `${P}/boxes/home`, { config: { region: 'far' } });
    assert.equal(moved.status, 409);
    const unknown = await t.api('POST', `${P}/boxes`, { name: 'nowhere', config: { region: 'mars' } });
    assert.equal(unknown.status, 400);
    assert.match(((await unknown.json()) as { detail: string }).detail, /"mars" is not one of this core's: local, far/);
  },
);

test(
  'a volume lives in its region: a box of another region mounting it is a 409',
  { skip: skip ?? false },
  async () => {
    const volume = await json<Volume>(t.api('POST', `${P}/volumes`, { name: 'data', region: 'far' }), 201);
    assert.equal(volume.region, 'far');
    const cross = await t.api('POST', `${P}/boxes`, { name: 'mounts', data_mounts: [{ name: 'data', path: '/data' }] });
    assert.equal(cross.status, 409);
    assert.match(((await cross.json()) as { detail: string }).detail, /region "far" and box "mounts" in "local"/);
    const attach = await t.api('POST', `${P}/volumes/data/attach`, { box: 'home', path: '/data' });
    assert.equal(attach.status, 409);
    const clone = await t.api('POST', `${P}/volumes`, { name: 'data2', from_volume: 'data' });
    assert.equal(clone.status, 409);

    // The CLI: box regions, and --region on volume create.
    const listed = ok(await box('regions'), 'box regions').stdout;
    assert.match(listed, /^local\s+docker \S+\s+up\s+1\s/m);
    assert.match(listed, /^far\s+docker \S+\s+up\s+2\s/m);
    ok(await box('volume', 'create', 'logs', '--region', 'far'), 'box volume create --region');
    assert.equal((await json<Volume>(t.api('GET', `${P}/volumes/logs`), 200)).region, 'far');
  },
);

test(
  "an engine that goes away: its region's operations 503 naming it, its records still read, the other region carries on, and it comes back by itself",
  { skip: skip ?? false },
  async () => {
    await far.stop();
    const down = await exec('away');
    assert.equal(down.status, 503);
    assert.match(((await down.json()) as { detail: string }).detail, /region "far"/);
    assert.equal((await json<Box>(t.api('GET', `${P}/boxes/away`), 200)).name, 'away');
    assert.equal((await regions())[1]!.engine.up, false);
    assert.equal((await exec('home')).status, 200);
    await json<Box>(t.api('POST', `${P}/boxes`, { name: 'meanwhile' }), 201);

    await far.start();
    await until('region "far" up again', async () => (await regions())[1]!.engine.up);
    await until('exec in the far box again', async () => (await exec('away')).status === 200);
  },
);
