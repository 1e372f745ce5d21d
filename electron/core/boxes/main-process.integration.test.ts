import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Box } from '../../../shared/schemas/box';
import { TEST_IMAGE } from '../../../test-support/core-process';
import { imageWithShell, removeImage, waitFor } from '../../../test-support/docker';
import { assertOomReported } from '../../../test-support/box-processes';
import { SseClient } from '../../../test-support/sse';
import { startTestCore, type TestCore } from '../../../test-support/test-core';

// A box's main process that cannot start, keeps exiting, or is killed for
// memory turns the box to `error` with the exit code, the cause and its last
// output, instead of being restarted forever under a `running` status.

let t: TestCore;
const P = '/v1/projects/mainproc/boxes';
const suffix = Date.now().toString(36);
const images = {
  crashing: `boxdesk-test/crashing-sh:${suffix}`,
  missing: `boxdesk-test/no-sh:${suffix}`,
  hog: `boxdesk-test/hog-sh:${suffix}`,
};

before(async () => {
  await imageWithShell(TEST_IMAGE, images.crashing, 'echo "broken shell says goodbye" >&2\nexit 3');
  await imageWithShell(TEST_IMAGE, images.missing, null);
  // Command substitution makes the shell itself hold 300 MB: the main process is what the kernel kills.
  await imageWithShell(
    TEST_IMAGE,
    images.hog,
    'echo "hogging memory"\nx=$(/bin/busybox head -c 300000000 /dev/zero | /bin/busybox tr "\\0" a)\necho "survived ${#x}"',
  );
  t = await startTestCore();
  for (const [name, image] of [
    ['crashing', images.crashing],
    ['missing', images.missing],
    ['hog', images.hog],
  ]) {
    const res = await t.api('POST', '/v1/bases', { name: `${name}-${suffix}`, image });
    assert.equal(res.status, 201, await res.text());
  }
});

after(async () => {
  const { items } = (await (await t.api('GET', `${P}?limit=500`)).json()) as { items: Box[] };
  for (const b of items) await t.api('DELETE', `${P}/${b.name}`);
  await t.close();
  for (const image of Object.values(images)) await removeImage(image);
});

async function createFrom(name: string, base: string, config?: Record<string, unknown>): Promise<Box> {
  const res = await t.api('POST', P, { name, base: `${base}-${suffix}`, ...(config ? { config } : {}) });
  assert.equal(res.status, 201, await res.clone().text());
  return (await res.json()) as Box;
}

function untilError(name: string): Promise<Box> {
  return waitFor(
    async () => {
      const box = (await (await t.api('GET', `${P}/${name}`)).json()) as Box;
      return box.status === 'error' ? box : null;
    },
    30_000,
    `box ${name} to turn error`,
  );
}

test('a crash-looping main process turns the box to error with its exit code and last output', async () => {
  await createFrom('looper', 'crashing');
  const box = await untilError('looper');
  assert.match(box.status_reason ?? '', /main process exited with code 3/);
  assert.match(box.status_reason ?? '', /3 exits within 60 s/);
  assert.match(box.status_reason ?? '', /broken shell says goodbye/);
  // It stays error: the core stopped restarting it.
  await new Promise((r) => setTimeout(r, 1500));
  const again = (await (await t.api('GET', `${P}/looper`)).json()) as Box;
  assert.equal(again.status, 'error');
});

test('a main process that cannot start at all turns the box to error, never a 500 or running', async () => {
  const created = await createFrom('nosh', 'missing');
  const box = created.status === 'error' ? created : await untilError('nosh');
  assert.match(box.status_reason ?? '', /main process (exited with code 127|could not start)/);
});

test('exec and stats on a crash-looped box answer 409 with a hint naming an allowed operation', async () => {
  const res = await t.api('POST', `${P}/looper/exec`, { command: ['true'] });
  const body = (await res.json()) as { code: string; hint?: string };
  assert.equal(res.status, 409, JSON.stringify(body));
  assert.match(body.hint ?? '', /resume it|delete/);
  const stats = await t.api('GET', `${P}/looper/stats`);
  assert.equal(stats.status, 409);
});

test('resume restarts a box in error; the crash loop brings it back to error', async () => {
  const res = await t.api('POST', `${P}/looper/resume`);
  assert.equal(res.status, 200, await res.clone().text());
  const box = await untilError('looper');
  assert.match(box.status_reason ?? '', /code 3/);
});

test('an OOM-killed main process turns the box to error at once, says so, and sends box.oom', async () => {
  const sse = new SseClient(`${t.url}/v1/events`, t.token);
  try {
    await assertOomReported(sse, async () => {
      await createFrom('hog', 'hog', { ram_mb: 64 });
      return untilError('hog');
    });
  } finally {
    sse.close();
  }
});
