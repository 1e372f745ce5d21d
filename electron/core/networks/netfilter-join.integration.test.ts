import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { TEST_IMAGE } from '../../../test-support/core-process';
import { readText } from '../engine/log-tail';
import { DockerEngine } from '../engine/docker/docker-engine';
import { helperLabels, helperSpec } from '../engine/helper-containers';
import { randomBase32 } from '../ids';
import { helperBinary } from './box-networking';
import { findNetfilterFiles } from './netfilter-files';
import { NetfilterHelper } from './netfilter-helper';
import { applyByJoining, NETFILTER_JOIN_ROLE } from './netfilter-join';

/*
 * The helper that joins a box's network namespace through the box's own engine (what a far
 * engine's boxes get, netfilter-join.ts), on the engine DOCKER_HOST names: Docker, or Podman in
 * its lane. A container serving on its loopback; a table refusing that port; the connection fails.
 */
const files = findNetfilterFiles();
const agent = helperBinary();
const skip =
  'missing' in files ? files.missing : agent ? false : 'the helper binary is not built (npm run build:agent)';
const engine = new DockerEngine();
const instanceId = `join${randomBase32(6)}`;
let box = '';

before(async () => {
  if (skip) return;
  box = await engine.createContainer(
    helperSpec({
      name: `boxdesk-join-test-${instanceId}`,
      image: TEST_IMAGE,
      command: ['sh', '-c', 'mkdir -p /w && echo served > /w/index.html && httpd -f -p 8099 -h /w'],
      hostname: 'joined',
      labels: helperLabels(instanceId, 'join-test'),
    }),
  );
  await engine.startContainer(box);
});
after(async () => {
  if (box) await engine.removeContainer(box);
});

/** What the box's loopback port 8099 answers from inside the box. */
async function fetchInside(): Promise<string> {
  const script = "printf 'GET / HTTP/1.0\\r\\n\\r\\n' | nc -w 3 127.0.0.1 8099 2>&1 | tail -n1";
  const exec = await engine.createExec(box, { command: ['sh', '-c', script], env: {}, tty: false, stdin: false });
  const streams = await engine.startExec(exec, { tty: false, stdin: false });
  const [out] = await Promise.all([readText(streams.stdout), readText(streams.stderr)]);
  return out.trim();
}

test(
  "a helper in the box's network namespace with NET_ADMIN alone sets its table, and is removed after",
  { skip },
  async () => {
    if ('missing' in files || !agent) return;
    assert.equal(await fetchInside(), 'served');
    const helper = new NetfilterHelper(engine, instanceId, { iptables: files, agent }, null);
    const image = await helper.image();
    const rules = [
      '*filter',
      ':INPUT ACCEPT [0:0]',
      ':FORWARD ACCEPT [0:0]',
      ':OUTPUT ACCEPT [0:0]',
      '-A OUTPUT -p tcp --dport 8099 -j REJECT --reject-with icmp-admin-prohibited',
      'COMMIT',
      '',
    ].join('\n');
    const joined = { image, binary: files.binary, instanceId };
    const applied = await applyByJoining(engine, joined, box, rules);
    assert.deepEqual(applied, { code: 0, output: '' });
    assert.match(await fetchInside(), /No route to host/);

    const bad = await applyByJoining(engine, joined, box, '*filter\n-A NOWHERE -j ACCEPT\nCOMMIT\n');
    assert.notEqual(bad.code, 0, 'a table iptables-restore refuses is an exit code');
    assert.match(bad.output, /NOWHERE|chain|line/i, bad.output);
    assert.match(await fetchInside(), /No route to host/, 'the table before stays');

    const left = await engine.listContainers({ 'boxdesk.instance': instanceId, 'boxdesk.role': NETFILTER_JOIN_ROLE });
    assert.deepEqual(left, []);
  },
);

test(
  "the packet filter's helper and its image removed behind the core's back are made again at the next box's rules",
  { skip },
  async () => {
    if ('missing' in files || !agent) return;
    // A digest of its own: the image is this test's, not the one other cores on the engine use.
    // (The image's name takes the digest's first 16 characters: the test's instance id leads.)
    const own = { ...agent, digest: `${instanceId}${agent.digest}` };
    // A socket directory, as a core's helper has (rules asked over it, not by an exec).
    const socketDir = fs.mkdtempSync(path.join(os.tmpdir(), 'boxdesk-nf-'));
    const helper = new NetfilterHelper(engine, instanceId, { iptables: files, agent: own }, socketDir);
    const pid = (await engine.inspectContainer(box))!.pid!;
    const open = ['*filter', ':INPUT ACCEPT [0:0]', ':FORWARD ACCEPT [0:0]', ':OUTPUT ACCEPT [0:0]', 'COMMIT', ''];
    try {
      await helper.apply(box, pid, open.join('\n'));
      assert.equal(await fetchInside(), 'served');
      // What another core of another build does to an image it finds unused, and a docker rm.
      const mine = { 'boxdesk.instance': instanceId, 'boxdesk.role': 'netfilter-helper' };
      for (const c of await engine.listContainers(mine)) await engine.removeContainer(c.id);
      await engine.removeImage(await helper.image());
      assert.equal(await engine.inspectImage(await helper.image()), null, 'the image is gone');

      await helper.apply(box, pid, open.join('\n'));
      assert.equal((await engine.listContainers(mine)).length, 1, 'one helper, made again');
    } finally {
      await helper.stop();
      await engine.removeImage(await helper.image()).catch(() => undefined);
      fs.rmSync(socketDir, { recursive: true, force: true });
    }
  },
);
