import assert from 'node:assert/strict';
import { test } from 'node:test';
import { waitFor } from '../../../test-support/docker';
import { startTestCore } from '../../../test-support/test-core';

test('a default base that is neither local nor pullable: listed without an image, and creating says what to do', async () => {
  const t = await startTestCore({ args: ['--default-base', 'boxdesk-missing/nothing:1'] });
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
  } finally {
    await t.close();
  }
});
