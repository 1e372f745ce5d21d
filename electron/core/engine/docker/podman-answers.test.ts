import assert from 'node:assert/strict';
import { test } from 'node:test';
import { asImageId, copierFailure, execRefused } from './podman-answers';

test("Podman's answers in Docker's form: ids, a refused exec, the extractor's failures without its request dump", () => {
  const hex = 'a'.repeat(64);
  assert.equal(asImageId(hex), `sha256:${hex}`);
  assert.equal(asImageId(`sha256:${hex}`), `sha256:${hex}`);
  assert.equal(asImageId('boxdesk-test/busybox:1'), 'boxdesk-test/busybox:1');

  assert.deepEqual(
    [execRefused('c1', 'can only create exec sessions on running containers: container state improper')?.kind],
    ['conflict'],
  );
  assert.equal(execRefused('c1', 'no such container'), null);

  const dump =
    'error during bulk transfer for copier.request{Request:"PUT", Root:"/", preservedRoot:"/var/lib/containers/storage/overlay/abc/merged", Directory:"/tmp"}: ' +
    'copier: put: error creating "/tmp/kinds/dir": copier: put: error creating file at "/tmp/kinds/dir": open /tmp/kinds/dir: file exists';
  const replaced = copierFailure(dump);
  assert.equal(replaced?.kind, 'invalid');
  assert.match(replaced!.message, /\/tmp\/kinds\/dir/);
  assert.doesNotMatch(replaced!.message, /var\/lib\/containers/);
  const other = copierFailure('copier: put: /tmp/f (/tmp/f): exists but is not a directory');
  assert.deepEqual([other?.kind, other?.message], ['failed', '/tmp/f (/tmp/f): exists but is not a directory']);
  assert.equal(copierFailure('no such container'), null);
});
