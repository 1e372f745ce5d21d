import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import type { Box } from '../../../shared/schemas/box';
import { tempDataDir } from '../../../test-support/core-process';
import { previewRequest, startBoxServers } from '../../../test-support/preview-http';
import { startTestCore } from '../../../test-support/test-core';

test('a published box keeps its route across a restart, and its url follows the proxy to its new port', async () => {
  const dataDir = tempDataDir();
  const P = '/v1/projects/restart/boxes';
  let t = await startTestCore({ dataDir });
  try {
    assert.equal((await t.api('POST', P, { name: 'site' })).status, 201);
    const first = (await (
      await t.api('POST', `${P}/site/publish`, { port: 8080, auth: 'public', domains: ['site.test'] })
    ).json()) as Box;
    assert.equal(first.url, `http://site--restart.localhost:${t.core.proxyPort}`);
    await t.close();

    t = await startTestCore({ dataDir });
    const again = (await (await t.api('GET', `${P}/site`)).json()) as Box;
    assert.equal(again.url, `http://site--restart.localhost:${t.core.proxyPort}`);
    assert.deepEqual([again.url_settings, again.published_domains], [{ auth: 'public' }, ['site.test']]);
    await startBoxServers(t.api, `${P}/site`, { port: 8080, text: 'still here' });
    assert.equal(
      (await previewRequest(t.core.proxyPort, `site--restart.localhost:${t.core.proxyPort}`, '/')).body,
      'still here',
    );
    assert.equal((await previewRequest(t.core.proxyPort, 'site.test', '/')).body, 'still here');
  } finally {
    await t.api('DELETE', `${P}/site`);
    await t.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
