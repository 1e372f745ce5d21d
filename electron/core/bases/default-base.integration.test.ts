import assert from 'node:assert/strict';
import { test } from 'node:test';
import fs from 'node:fs';
import type { SystemInfo } from '../../../shared/schemas/system';
import { TEST_IMAGE, tempDataDir } from '../../../test-support/core-process';
import { runBox } from '../../../test-support/cli-runner';
import { waitFor } from '../../../test-support/docker';
import { startTestCore } from '../../../test-support/test-core';

test('a default base that is neither local nor pullable: listed without an image, creating and /v1/system say what to do; --default-base on the next start fixes it', async () => {
  const dataDir = tempDataDir();
  let t = await startTestCore({ dataDir, args: ['--default-base', 'boxdesk-missing/nothing:1'] });
  try {
    const { items } = (await (await t.api('GET', '/v1/bases')).json()) as {
      items: { name: string; image: string; image_id: string | null }[];
    };
    assert.deepEqual(
      items.map((b) => [b.name, b.image, b.image_id]),
      [['default', 'boxdesk-missing/nothing:1', null]],
    );
    const body = await waitFor(
      async () => {
        const res = await t.api('POST', '/v1/projects/p/boxes', { name: 'x' });
        const b = (await res.json()) as { code: string; detail: string };
        // While the pull is still being tried the answer says so; then it says why it failed.
        return res.status === 409 && /could not be pulled/.test(b.detail) ? b : null;
      },
      20_000,
      'the pull to fail',
    );
    assert.equal(body.code, 'conflict');
    assert.match(body.detail, /boxdesk-missing\/nothing:1/);
    assert.match(body.detail, /--default-base/);
    assert.equal(
      ((await (await t.api('GET', '/v1/projects/p/boxes')).json()) as { items: unknown[] }).items.length,
      0,
      'nothing was created',
    );
    const missing = ((await (await t.api('GET', '/v1/system')).json()) as SystemInfo).default_base;
    assert.deepEqual([missing.name, missing.image, missing.available], ['default', 'boxdesk-missing/nothing:1', false]);
    assert.match(missing.reason ?? '', /could not be pulled.*--default-base/s);
    // box health says so, with what to do, and exits 1: `box create NAME` would fail.
    const health = await runBox(['health'], { env: { SERVICE_URL: t.url, SERVICE_TOKEN: t.token } });
    assert.equal(health.code, 1, health.stderr);
    assert.match(health.stdout, /^default base:\s+boxdesk-missing\/nothing:1 missing: .*--default-base/m);

    // The same data dir, started again naming an image the engine has: the flag takes effect.
    await t.close();
    t = await startTestCore({ dataDir, args: ['--default-base', TEST_IMAGE] });
    const fixed = ((await (await t.api('GET', '/v1/system')).json()) as SystemInfo).default_base;
    assert.deepEqual(fixed, { name: 'default', image: TEST_IMAGE, available: true });
    const made = await t.api('POST', '/v1/projects/p/boxes', { name: 'x' });
    assert.equal(made.status, 201, await made.text());
    assert.equal((await t.api('DELETE', '/v1/projects/p/boxes/x')).status, 204);
  } finally {
    await t.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
