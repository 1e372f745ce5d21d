import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { test } from 'node:test';
import { readFileContent } from './agent-download';

/**
 * The download's reader on a real accepted unix connection, as the hub has them (the agent dials
 * the core): the handle moved to a socket reading into pooled buffers relies on net.Socket's own
 * fields, so a Node that changes them fails here. The other end answers as the agent does.
 */
async function accepted(answer: (peer: net.Socket, request: string) => void): Promise<net.Socket> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'boxdesk-download-'));
  const server = net.createServer();
  const socketPath = path.join(dir, 's.sock');
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  const peer = net.connect(socketPath);
  let request = '';
  peer.on('data', (d: Buffer) => {
    request += d.toString('latin1');
    if (request.includes('\r\n\r\n')) answer(peer, request);
  });
  const socket = await new Promise<net.Socket>((resolve) => server.once('connection', resolve));
  server.close();
  socket.on('close', () => fs.rmSync(dir, { recursive: true, force: true }));
  return socket;
}

/** Both ends of a loopback TCP connection. */
async function socketPair(): Promise<[net.Socket, net.Socket]> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const near = net.connect((server.address() as net.AddressInfo).port, '127.0.0.1');
  const far = await new Promise<net.Socket>((resolve) => server.once('connection', resolve));
  server.close();
  return [near, far];
}

const head = (size: number) =>
  `HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: ${size}\r\n\r\n`;

/** Everything a stream gives until it ends, or the error it fails with. */
async function drain(stream: Readable): Promise<Buffer | Error> {
  const parts: Buffer[] = [];
  try {
    for await (const chunk of stream) parts.push(chunk as Buffer);
    return Buffer.concat(parts);
  } catch (err) {
    return err as Error;
  }
}

test('a file of several buffers arrives whole, written into the answer and read as a stream alike', async () => {
  const body = crypto.randomBytes(5 * 1024 * 1024 + 123);
  for (const how of ['answer', 'stream'] as const) {
    const socket = await accepted((peer, request) => {
      assert.match(request, /^GET \/v1\/files\/content\?path=%2Ftmp%2Ff HTTP\/1\.1\r\n/);
      peer.write(head(body.length));
      peer.end(body);
    });
    const { size, stream } = await readFileContent(socket, '/tmp/f', 5_000);
    assert.equal(size, body.length);
    let got: Buffer | Error;
    if (how === 'answer') {
      // A socket, as under an HTTP answer: its write callback comes once the bytes are written.
      const [sink, far] = await socketPair();
      const received = drain(far);
      (stream as Readable & { sendInto(s: net.Socket): void }).sendInto(sink);
      got = await received;
    } else got = await drain(stream);
    assert.ok(Buffer.isBuffer(got) && got.equals(body), `${how}: ${got instanceof Error ? got.message : got.length}`);
    await new Promise((resolve) => (socket.destroyed ? resolve(null) : socket.once('close', resolve)));
  }
});

test('an answer that ends short of its length fails the stream, never a short file', async () => {
  const socket = await accepted((peer) => {
    peer.write(head(1000));
    peer.end(Buffer.alloc(600, 1));
  });
  const { stream } = await readFileContent(socket, '/f', 5_000);
  const got = await drain(stream);
  assert.ok(got instanceof Error, 'the stream failed');
  assert.match(got.message, /400 bytes short of 1000/);
});

test("a refusal is the agent's words as the engine's error", async () => {
  const socket = await accepted((peer) => {
    const text = JSON.stringify({ status: 404, detail: 'no such path in the box: /nope' });
    peer.end(
      `HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nContent-Length: ${text.length}\r\n\r\n${text}`,
    );
  });
  await assert.rejects(readFileContent(socket, '/nope', 5_000), /no such path in the box: \/nope/);
});
