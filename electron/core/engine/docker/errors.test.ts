import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toEngineError } from './errors';

// What the engines answer (Docker's and Podman's own messages), classified by their words.
test("engine failures are classified by the engine's message", () => {
  const kind = (err: unknown) => toEngineError(err).kind;
  assert.equal(kind({ code: 'ECONNREFUSED', message: 'connect ECONNREFUSED /var/run/docker.sock' }), 'unavailable');
  assert.equal(kind({ statusCode: 404, json: { message: 'No such container: abc' } }), 'not_found');
  assert.equal(
    kind({ statusCode: 409, json: { message: 'Container abc is paused, unpause the container' } }),
    'conflict',
  );
  assert.equal(kind({ statusCode: 400, json: { message: 'invalid reference format' } }), 'invalid');
  assert.equal(kind({ statusCode: 500, json: { message: 'something broke' } }), 'failed');
});

test("Podman without catatonit: the message says what to install, and it is not a 'not found'", () => {
  const err = toEngineError({
    statusCode: 404,
    json: {
      message:
        'container create: container-init binary not found on the host: stat /usr/libexec/podman/catatonit: no such file or directory',
    },
  });
  assert.equal(err.kind, 'failed');
  assert.match(err.message, /Podman needs catatonit.*apt install catatonit/);
});

test('a host interface that went while Podman read them is not a missing network', () => {
  // The message as the Podman lane got it (Podman 4.3), as a 404: a box's create answered 404 with it.
  const err = toEngineError({ statusCode: 404, json: { message: 'route ip+net: no such network interface' } });
  assert.equal(err.kind, 'failed');
  assert.match(err.message, /interfaces changed while the engine read them; try again/);
});
