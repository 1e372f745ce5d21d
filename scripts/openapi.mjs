// `npm run openapi`: writes docs/openapi.json, the document the core serves at /v1/openapi.json.
// It starts a core on the in-memory engine (no Docker needed: the routes, and so the document,
// are the same on every engine), reads the document and stops it.
// openapi-document.integration.test.ts fails when the committed file differs from what a core serves.
import './check-node.mjs';
import { startMemoryCore } from '../test-support/memory-core.ts';
import { servedOpenApi, writeCommittedOpenApi } from '../test-support/openapi-document.ts';

const core = await startMemoryCore();
try {
  const doc = await servedOpenApi(core);
  await writeCommittedOpenApi(doc);
  const operations = Object.values(doc.paths).reduce((n, item) => n + Object.keys(item).length, 0);
  console.log(`wrote docs/openapi.json: ${Object.keys(doc.paths).length} paths, ${operations} operations`);
} finally {
  await core.close();
}
