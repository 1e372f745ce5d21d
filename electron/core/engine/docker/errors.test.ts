import assert from 'node:assert/strict';
import { test } from 'node:test';
import type Docker from 'dockerode';
import type { EngineError } from '../container-engine';
import { toEngineError } from './errors';
import { ensureNetwork } from './networks';

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

test("Podman's network create when a host interface goes meanwhile: not a missing network, and created when asked again", async () => {
  // The message as the Podman lane got it (Podman 4.3), as a 404: a box's create answered 404 with it.
  const vanished = { statusCode: 404, json: { message: 'route ip+net: no such network interface' } };
  const err = toEngineError(vanished);
  assert.equal(err.kind, 'failed');
  assert.match(err.message, /interfaces changed while the engine read them; try again/);

  let creates = 0;
  const docker = {
    getNetwork: () => ({ inspect: () => Promise.reject({ statusCode: 404, json: { message: 'network not found' } }) }),
    createNetwork: () => (++creates < 3 ? Promise.reject(vanished) : Promise.resolve({ id: 'net-1' })),
  } as unknown as Docker;
  assert.equal(await ensureNetwork(docker, 'boxdesk-p', {}), 'net-1');
  assert.equal(creates, 3);

  creates = -10; // never succeeds within the attempts: the last failure, classified as above
  await assert.rejects(ensureNetwork(docker, 'boxdesk-p', {}), (e: Error) => (e as EngineError).kind === 'failed');
  assert.equal(creates, -5, 'five attempts');
});
