import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { pack } from 'tar-stream';
import type { Base } from '../../../shared/schemas/system';
import { busyboxBinary } from '../../../test-support/snapshots';
import { TEST_IMAGE } from '../../../test-support/core-process';
import { startTestCore, type TestCore } from '../../../test-support/test-core';

/**
 * Tars written to escape: `..` chains and absolute names aimed at a host directory, a symlink to
 * the host's root followed by a file "through" it, a hard link to a host file, and a device node.
 */
const P = '/v1/projects/hostile/boxes';
const hostDir = fs.mkdtempSync(path.join(os.tmpdir(), 'boxdesk-hostile-'));
const hostFile = path.join(hostDir, 'keep.txt');
const escapes = ['dotdot', 'absolute', 'via-link'].map((n) => path.join(hostDir, n));

let t: TestCore;
before(async () => {
  fs.writeFileSync(hostFile, 'untouched\n');
  t = await startTestCore();
});
after(async () => {
  await t.api('DELETE', `${P}/landing`);
  await t.api('DELETE', `${P}/from-hostile`);
  await t.api('DELETE', '/v1/bases/hostile-root');
  await t.close();
  fs.rmSync(hostDir, { recursive: true, force: true });
});

async function hostileTar(extra: (p: ReturnType<typeof pack>) => void = () => undefined): Promise<Buffer> {
  const p = pack();
  const chunks: Buffer[] = [];
  p.on('data', (c) => chunks.push(c as Buffer));
  const ended = new Promise<void>((resolve) => p.on('end', () => resolve()));
  extra(p);
  p.entry({ name: `${'../'.repeat(24)}${escapes[0]!.slice(1)}` }, 'escaped by ..\n');
  p.entry({ name: escapes[1]! }, 'escaped by an absolute name\n');
  p.entry({ name: 'hostroot', type: 'symlink', linkname: '/' });
  p.entry({ name: `hostroot${escapes[2]!}` }, 'escaped through a symlink\n');
  p.entry({ name: 'hardlink', type: 'link', linkname: hostFile });
  p.entry({ name: 'null-device', type: 'character-device', devmajor: 1, devminor: 3 });
  p.finalize();
  await ended;
  return Buffer.concat(chunks);
}

function assertHostUntouched(): void {
  for (const file of escapes) assert.equal(fs.existsSync(file), false, `${file} was written on the host`);
  assert.equal(fs.readFileSync(hostFile, 'utf8'), 'untouched\n');
  assert.deepEqual(fs.readdirSync(hostDir).sort(), ['keep.txt']);
}

test('a hostile tar uploaded as a file lands as those bytes and is never unpacked', async () => {
  assert.equal((await t.api('POST', P, { name: 'landing' })).status, 201);
  const tar = await hostileTar();
  const res = await fetch(`${t.url}${P}/landing/files?path=${encodeURIComponent('/upload/evil.tar')}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${t.token}`, 'content-type': 'application/octet-stream' },
    body: tar,
  });
  assert.equal(res.status, 200, await res.clone().text());
  const back = Buffer.from(
    await (
      await fetch(`${t.url}${P}/landing/files?path=/upload/evil.tar`, {
        headers: { authorization: `Bearer ${t.token}` },
      })
    ).arrayBuffer(),
  );
  assert.equal(
    crypto.createHash('sha256').update(back).digest('hex'),
    crypto.createHash('sha256').update(tar).digest('hex'),
  );
  const list = (await (await t.api('GET', `${P}/landing/files/list?path=/upload`)).json()) as {
    items: { path: string }[];
  };
  assert.deepEqual(
    list.items.map((i) => i.path),
    ['/upload/evil.tar'],
  );
  const probe = (await (
    await t.api('POST', `${P}/landing/exec`, {
      command: ['sh', '-c', `ls ${escapes.join(' ')} /hostroot /hardlink 2>/dev/null | wc -l`],
    })
  ).json()) as { stdout: string };
  assert.equal(probe.stdout.trim(), '0');
  assertHostUntouched();
});

test('a hostile rootfs tar imported as a base writes nothing outside the image', async () => {
  const busybox = await busyboxBinary(TEST_IMAGE);
  const tar = await hostileTar((p) => {
    p.entry({ name: 'bin/', type: 'directory', mode: 0o755 });
    p.entry({ name: 'bin/busybox', mode: 0o755 }, busybox);
    for (const applet of ['sh', 'sleep', 'ls', 'cat'])
      p.entry({ name: `bin/${applet}`, type: 'symlink', linkname: '/bin/busybox' });
  });
  const res = await fetch(`${t.url}/v1/bases/hostile-root/import`, {
    method: 'POST',
    headers: { authorization: `Bearer ${t.token}`, 'content-type': 'application/octet-stream' },
    body: tar,
  });
  // The engine may refuse the archive (400) or import it with every name kept inside the image (201).
  assert.ok(res.status === 201 || res.status === 400, `${res.status} ${await res.clone().text()}`);
  assertHostUntouched();
  if (res.status === 400) return;
  (await res.json()) as Base;
  const box = await t.api('POST', P, { name: 'from-hostile', base: 'hostile-root' });
  assert.equal(box.status, 201, await box.clone().text());
  // Inside the box the escaping names exist only as the box's own files, if at all; the host is unchanged.
  const probe = (await (
    await t.api('POST', `${P}/from-hostile/exec`, { command: ['sh', '-c', 'cat /hardlink 2>/dev/null; echo .'] })
  ).json()) as { stdout: string };
  assert.doesNotMatch(probe.stdout, /untouched/);
  assertHostUntouched();
});
