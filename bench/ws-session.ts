import WebSocket from 'ws';
import type { CoreProcess } from '../test-support/core-process';

export interface CoreRef {
  core: CoreProcess;
  project: string;
}

export type MessageHandler = (data: Buffer, isBinary: boolean) => void;

/**
 * Opens the exec WebSocket as a client would (token in a subprotocol);
 * resolves once the socket is open. `onMessage` is bound before the handshake
 * ends: frames that came with the 101 answer are delivered before an awaiting
 * caller would run again.
 */
export function openExecSocket(
  ref: CoreRef,
  box: string,
  command: string[],
  tty: boolean,
  onMessage: MessageHandler,
): Promise<WebSocket> {
  const url = new URL(`${ref.core.url.replace(/^http/, 'ws')}/v1/projects/${ref.project}/boxes/${box}/exec`);
  for (const part of command) url.searchParams.append('command', part);
  url.searchParams.set('tty', tty ? '1' : '0');
  url.searchParams.set('cols', '80');
  url.searchParams.set('rows', '24');
  const ws = new WebSocket(url, ['boxdesk.v1', `bearer.${ref.core.token}`], { perMessageDeflate: false });
  ws.on('message', onMessage);
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
    ws.once('unexpected-response', (_req, res) => reject(new Error(`exec socket refused: HTTP ${res.statusCode}`)));
  });
}

export interface StreamCount {
  ms: number;
  bytes: number;
  exitCode: number | null;
}

/**
 * Runs a command on a TTY through the exec WebSocket and counts the terminal
 * bytes until `expected` arrived, or the socket closed (whichever is first).
 */
export async function coreTtyStream(
  ref: CoreRef,
  box: string,
  command: string[],
  expected: number,
): Promise<StreamCount> {
  const start = performance.now();
  let bytes = 0;
  let doneAt = 0;
  let exitCode: number | null = null;
  let allIn: () => void = () => undefined;
  const ws = await openExecSocket(ref, box, command, true, (data, isBinary) => {
    if (!isBinary) {
      const msg = JSON.parse(data.toString('utf8')) as { type: string; code?: number };
      if (msg.type === 'exit') exitCode = msg.code ?? null;
      return;
    }
    bytes += data.length;
    if (bytes >= expected) {
      doneAt ||= performance.now();
      allIn();
    }
  });
  await new Promise<void>((resolve, reject) => {
    const finish = () => {
      doneAt ||= performance.now();
      resolve();
    };
    allIn = finish;
    if (doneAt || ws.readyState === ws.CLOSED) finish();
    ws.on('close', finish);
    ws.on('error', reject);
  });
  // Let the exit frame and the close arrive, so the session ends before the next run.
  await closed(ws, 15_000);
  return { ms: doneAt - start, bytes, exitCode };
}

/** Resolves when the socket has closed; terminates it if that takes longer than `ms`. */
export function closed(ws: WebSocket, ms: number): Promise<void> {
  if (ws.readyState === ws.CLOSED) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      ws.terminate();
      resolve();
    }, ms);
    ws.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}
