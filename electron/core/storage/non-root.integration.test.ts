import Database from 'better-sqlite3';
import { execFileSync } from 'node:child_process';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { DockerEngine } from '../engine/docker/docker-engine';
import { randomBase32 } from '../ids';
import { api, startCoreProcess, tempDataDir, type CoreProcess } from '../../../test-support/core-process';
import { containersOfBox } from '../../../test-support/docker';
import { missingFor, removeStoreLeftovers } from '../../../test-support/storage';

/** A user of this machine's own Node: the binary linked (else copied) where that user can run it. */
function nodeFor(dir: string): string {
  const bin = path.join(dir, 'node');
  const real = fs.realpathSync(process.execPath);
  try {
    fs.linkSync(real, bin);
  } catch {
    fs.copyFileSync(real, bin);
  }
  fs.chmodSync(bin, 0o755);
  return bin;
}

/** A box with egress none made by this core has its filter table set, as the packet filter's helper sees it. */
async function boxRulesAreSet(core: Pick<CoreProcess, 'url' | 'token'>): Promise<void> {
  const boxes = '/v1/projects/default/boxes';
  const res = await api(core, 'POST', boxes, { name: 'net', network: { egress: 'none' } });
  assert.equal(res.status, 201, await res.text());
  try {
    const box = (await (await api(core, 'GET', `${boxes}/net`)).json()) as { id: string };
    const [container] = await containersOfBox(box.id);
    const image = execFileSync('docker', ['images', '-q', '--filter', 'label=boxdesk.role=netfilter-helper'], {
      encoding: 'utf8',
    }).split('\n')[0]!;
    const [binary] = ['/usr/sbin/xtables-nft-multi', '/usr/sbin/xtables-legacy-multi'].filter((b) => fs.existsSync(b));
    const rules = execFileSync(
      'docker',
      [
        'run',
        '--rm',
        '--network',
        `container:${container!.Id}`,
        '--cap-add',
        'NET_ADMIN',
        image,
        binary!,
        'iptables-save',
        '-t',
        'filter',
      ],
      { encoding: 'utf8' },
    );
    assert.match(rules, /^-A OUTPUT -j BOXDESK-REFUSE$/m);
    assert.match(rules, /^-A BOXDESK-REFUSE -j REJECT --reject-with icmp-admin-prohibited$/m);
  } finally {
    await api(core, 'DELETE', `${boxes}/net`);
  }
}

test("a core run by a user in the docker group, not root, gets the loop-btrfs store and sets boxes' packet filters", async (t) => {
  if (process.getuid?.() !== 0) return t.skip('making a user needs root');
  const missing = missingFor('loop-btrfs');
  if (missing) return t.skip(missing);
  const user = `bdst${randomBase32(8)}`;
  execFileSync('useradd', ['--no-create-home', '--shell', '/usr/sbin/nologin', '--groups', 'docker', user]);
  const home = tempDataDir('boxdesk-nonroot-');
  const dataDir = path.join(home, 'data');
  let instanceId: string | null = null;
  try {
    const uid = Number(execFileSync('id', ['-u', user], { encoding: 'utf8' }));
    const dockerGid = Number(execFileSync('getent', ['group', 'docker'], { encoding: 'utf8' }).split(':')[2]);
    fs.chmodSync(home, 0o755);
    fs.mkdirSync(dataDir, { mode: 0o700 });
    fs.chownSync(dataDir, uid, uid);
    const core = await startCoreProcess({
      dataDir,
      args: ['--storage-driver', 'auto'],
      env: { HOME: dataDir, BOXDESK_STORAGE_DRIVER: 'auto' },
      runAs: { prefix: ['setpriv', `--reuid=${user}`, `--regid=${user}`, '--init-groups', '--'], node: nodeFor(home) },
    });
    try {
      const status = fs.readFileSync(`/proc/${core.child.pid}/status`, 'utf8');
      assert.equal(Number(/^Uid:\s+(\d+)/m.exec(status)?.[1]), uid, 'the core runs as the user');
      assert.ok(/^Groups:(.*)$/m.exec(status)![1]!.trim().split(/\s+/).map(Number).includes(dockerGid));
      let storage: { driver: string | null; path: string | null; size_bytes: number | null; reason?: string } | null;
      for (let i = 0; ; i++) {
        const res = await api(core, 'GET', '/v1/system');
        assert.equal(res.status, 200);
        storage = ((await res.json()) as { storage: typeof storage }).storage;
        if (storage?.driver || i >= 120) break;
        await new Promise((r) => setTimeout(r, 500));
      }
      assert.equal(storage!.driver, 'loop-btrfs', `the store: ${JSON.stringify(storage)}`);
      assert.ok(storage!.path!.startsWith(path.join(dataDir, 'storage')), storage!.path!);
      assert.ok((storage!.size_bytes ?? 0) > 0);
      // The data dir stays the user's; only the image file is the helper's.
      assert.equal(fs.statSync(path.join(dataDir, 'storage')).uid, uid);
      await boxRulesAreSet(core);
    } finally {
      assert.equal(await core.stop(), 0);
      const db = new Database(path.join(dataDir, 'boxdesk.db'), { readonly: true });
      instanceId = (db.prepare("SELECT value FROM meta WHERE key = 'instance_id'").get() as { value: string }).value;
      db.close();
    }
  } finally {
    if (instanceId) await removeStoreLeftovers(new DockerEngine(), instanceId);
    execFileSync('userdel', [user]);
    fs.rmSync(home, { recursive: true, force: true });
  }
});
