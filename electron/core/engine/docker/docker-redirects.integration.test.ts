import assert from 'node:assert/strict';
import net from 'node:net';
import { test } from 'node:test';
import { DockerEngine } from './docker-engine';

test('the Docker driver never follows an engine redirect to another host', async () => {
  let connections = 0;
  const server = net.createServer((socket) => {
    connections++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  try {
    // dockerd answers this path with a 301 whose Location names 127.0.0.1:<port>.
    await assert.rejects(new DockerEngine().inspectImage(`a/../../127.0.0.1:${port}`));
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(connections, 0);
  } finally {
    await new Promise<void>((r) => server.close(() => r()));
  }
});
