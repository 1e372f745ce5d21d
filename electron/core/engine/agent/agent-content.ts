import type net from 'node:net';
import { Readable } from 'node:stream';
import { EngineError, type EngineErrorKind } from '../container-engine';

/**
 * The agent's content calls (docs/protocol.md, `file-content`): one regular file's bytes as the
 * body, with its Content-Length. The HTTP around them is written and read here on the raw
 * connection rather than through node:http: after the head, the bytes go from one socket to the
 * other as they were read, with no parser in between (Node's copies every body chunk it reads),
 * no chunked framing and no tar to make or take apart. A transfer of hundreds of MiB costs the
 * core a quarter or less of what it did (docs/benchmarks.md).
 */

/** The agent's answer for a path it leaves to the engine (/proc, /sys, /dev, /.boxdesk, a tar of the root). */
export const ENGINE_SERVES = 421;

/** The agent will not serve this call (or did not answer it in time: `stalled`): the engine does. */
export class ToEngine extends Error {
  constructor(readonly stalled = false) {
    super(stalled ? 'the box agent did not answer' : 'the engine serves this path');
  }
}

export const KINDS: Record<number, EngineErrorKind> = { 400: 'invalid', 404: 'not_found', 409: 'conflict' };

/** The agent's refusal as the engine's error of the same kind, with the agent's words. */
export function refusalOf(status: number, text: string): Error {
  if (status === ENGINE_SERVES) return new ToEngine();
  let detail = text;
  try {
    detail = (JSON.parse(text) as { detail?: string }).detail ?? text;
  } catch {
    // not JSON: the text as it is
  }
  return new EngineError(KINDS[status] ?? 'failed', detail);
}

export interface Head {
  status: number;
  headers: Map<string, string>;
}

const HEAD_END = Buffer.from('\r\n\r\n');

/**
 * The first answer head at the start of `pending` and how many bytes it takes; null while it is
 * not all there, an Error when it is not an HTTP answer.
 */
export function headIn(pending: Buffer): { head: Head; length: number } | Error | null {
  const end = pending.indexOf(HEAD_END);
  if (end < 0) return null;
  const [statusLine = '', ...lines] = pending.subarray(0, end).toString('latin1').split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? NaN);
  if (!Number.isInteger(status)) return new Error(`the box agent answered "${statusLine}"`);
  const headers = new Map<string, string>();
  for (const line of lines) {
    const at = line.indexOf(':');
    if (at > 0) headers.set(line.slice(0, at).trim().toLowerCase(), line.slice(at + 1).trim());
  }
  return { head: { status, headers }, length: end + HEAD_END.length };
}

/** A connection error, marked as coming after the agent took the body (no engine can answer it then). */
const afterSent = (err: Error) => Object.assign(err, { sent: true });

/**
 * Reads answer heads off the connection until a final one: each `100 Continue` calls
 * `onContinue`. The connection is paused after the final head and the bytes after it are put back,
 * so whoever reads next starts at the body. `timeoutMs` bounds the wait for the first head.
 */
function finalHead(socket: net.Socket, onContinue?: () => void, timeoutMs?: number): Promise<Head> {
  return new Promise((resolve, reject) => {
    let pending: Buffer = Buffer.alloc(0);
    const timer = timeoutMs ? setTimeout(() => done(new ToEngine(true)), timeoutMs) : undefined;
    const done = (err: Error | null, head?: Head) => {
      clearTimeout(timer);
      socket.off('data', onData).off('error', onError).off('end', onEnd);
      if (err) {
        socket.destroy();
        return reject(err);
      }
      resolve(head!);
    };
    const onError = (err: Error) => done(err);
    const onEnd = () => done(new Error('the box agent closed the connection before it answered'));
    const onData = (chunk: Buffer) => {
      pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
      for (let found = headIn(pending); found; found = headIn(pending)) {
        if (found instanceof Error) return done(found);
        pending = pending.subarray(found.length);
        clearTimeout(timer);
        if (found.head.status === 100) {
          onContinue?.();
          continue;
        }
        socket.pause();
        if (pending.length) socket.unshift(pending);
        return done(null, found.head);
      }
    };
    socket.on('data', onData).on('error', onError).on('end', onEnd);
    socket.resume();
  });
}

/** The rest of the connection as text (a refusal's JSON; the agent closes after it). */
async function rest(socket: net.Socket): Promise<string> {
  const parts: Buffer[] = [];
  for await (const chunk of socket) parts.push(chunk as Buffer);
  return Buffer.concat(parts).toString('utf8');
}

async function refused(socket: net.Socket, head: Head): Promise<Error> {
  if (head.status === ENGINE_SERVES) {
    socket.destroy();
    return new ToEngine();
  }
  const text = await rest(socket).catch(() => `the box agent's answer was cut off (${head.status})`);
  return refusalOf(head.status, text);
}

/**
 * Exactly `size` bytes of the connection as a stream, its own chunks handed on (paused while the
 * reader is full). Ending short is an error, so a download's client sees a cut connection, never a
 * short file.
 */
function exactly(socket: net.Socket, size: number): Readable {
  let left = size;
  const out = new Readable({
    highWaterMark: 1024 * 1024,
    read: () => void socket.resume(),
    destroy(err, callback) {
      socket.destroy();
      callback(err);
    },
  });
  const short = () => new Error(`the box agent's answer ended ${left} bytes short of ${size}`);
  socket.on('data', (chunk: Buffer) => {
    left -= chunk.length;
    if (!out.push(chunk)) socket.pause();
  });
  socket.on('end', () => (left === 0 ? out.push(null) : out.destroy(short())));
  socket.on('error', (err) => out.destroy(err));
  socket.on('close', () => {
    if (left !== 0) out.destroy(short());
  });
  return out;
}

export const q = (p: string) => encodeURIComponent(p);
export const requestHead = (method: string, target: string, headers: string[] = []) =>
  [`${method} ${target} HTTP/1.1`, 'Host: box-agent', 'Connection: close', ...headers, '', ''].join('\r\n');

/** A regular file's bytes from the agent (its parents' links resolved in the box, the file itself not followed). */
export async function readContent(
  socket: net.Socket,
  path: string,
  answeredWithinMs: number,
): Promise<{ size: number; stream: Readable }> {
  socket.write(requestHead('GET', `/v1/files/content?path=${q(path)}`));
  const head = await finalHead(socket, undefined, answeredWithinMs);
  if (head.status !== 200) throw await refused(socket, head);
  const size = Number(head.headers.get('content-length'));
  if (!Number.isSafeInteger(size) || size < 0) {
    socket.destroy();
    throw new EngineError('failed', 'the box agent answered a file without its length');
  }
  return { size, stream: exactly(socket, size) };
}

/**
 * Creates `path` in the box (nothing may be there) from exactly `size` bytes of `body`. The body is
 * sent once the agent has taken the call (100 Continue): an agent that leaves the path to the
 * engine answers 421 first, and the body is still whole for the engine (ToEngine). A body that
 * fails or ends short cuts the connection, and the agent removes what it wrote.
 */
export function writeContent(
  socket: net.Socket,
  path: string,
  mode: number,
  size: number,
  body: Readable,
): Promise<void> {
  return new Promise((resolve, reject) => {
    let sent = 0;
    let sending = false;
    let answered = false;
    const onChunk = (chunk: Buffer) => {
      sent += chunk.length;
      if (sent > size) return fail(new Error(`the upload is longer than its declared ${size} bytes`));
      if (!socket.write(chunk)) body.pause();
    };
    /** The body is no longer sent (answered or failed): left paused for its owner. */
    const stop = () => {
      answered = true;
      if (!sending) return; // never read: its owner still has it whole
      body.off('data', onChunk);
      body.pause();
    };
    const fail = (err: Error) => {
      stop();
      socket.destroy();
      reject(sending ? afterSent(err) : err);
    };
    // A body that fails before the agent asks for it (an upload cut off) ends the call at once.
    const early = (err?: Error) => {
      if (!sending) fail(err ?? new Error('the upload ended before the box agent took it'));
    };
    // One already cut off (its close came before this call) would never say so again.
    if (body.destroyed) return reject(new Error('the upload ended before the box agent took it'));
    body.once('error', early);
    body.once('close', early);
    const send = () => {
      if (body.destroyed && !body.readableEnded) return fail(new Error('the upload ended before its last byte'));
      sending = true;
      body.off('error', early).off('close', early);
      body.on('data', onChunk);
      socket.on('drain', () => {
        if (!answered) body.resume();
      });
      body.once('error', fail);
      body.once('end', () => {
        if (sent !== size) fail(new Error(`the upload ended after ${sent} of its ${size} bytes`));
      });
      body.once('close', () => {
        if (!body.readableEnded) fail(new Error('the upload ended before its last byte'));
      });
    };
    socket.write(
      requestHead('PUT', `/v1/files/content?path=${q(path)}&mode=${(mode & 0o7777).toString(8)}`, [
        'Content-Type: application/octet-stream',
        `Content-Length: ${size}`,
        'Expect: 100-continue',
      ]),
    );
    finalHead(socket, send).then(async (head) => {
      stop(); // a refusal can come before the last byte: the rest is not wanted
      body.off('error', early).off('close', early);
      if (head.status === 204) {
        socket.destroy();
        return resolve();
      }
      const err = await refused(socket, head);
      reject(sending && !(err instanceof EngineError) ? afterSent(err) : err);
    }, fail);
  });
}
