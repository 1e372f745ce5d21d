import { ApiError, type Problem } from '../shared/errors';
import {
  BEARER_PROTOCOL_PREFIX,
  Channel,
  WS_PROTOCOL,
  type ClientControl,
  type ServerControl,
} from '../shared/protocol';
import { TerminalQueryFilter } from './terminal-queries';

export interface TerminalOptions {
  url: string;
  token: string | undefined;
  /** true: raw bytes both ways; false: channel-prefixed frames. */
  tty: boolean;
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  /** Called with the session id once the server is ready (for reattaching). */
  onReady?(session: string): void;
}

export interface TerminalResult {
  code: number | null;
  session: string | null;
}

/** Initial size of the local terminal, for the socket's query string. */
export function terminalSize(stdout: NodeJS.WriteStream): [string, number | undefined][] {
  // A pseudo-terminal without a size (e.g. under `script`) reports 0.
  return stdout.isTTY && stdout.columns > 0 && stdout.rows > 0
    ? [
        ['cols', stdout.columns],
        ['rows', stdout.rows],
      ]
    : [];
}

/** Reads a refused upgrade's problem document into an ApiError. */
function refusal(res: import('node:http').IncomingMessage): Promise<ApiError> {
  return new Promise((resolve) => {
    let text = '';
    res.on('data', (d: Buffer) => (text += d.toString('utf8')));
    res.on('end', () => {
      let problem: Partial<Problem>;
      try {
        problem = JSON.parse(text) as Problem;
      } catch {
        problem = { detail: text.slice(0, 500) || `HTTP ${res.statusCode}` };
      }
      resolve(ApiError.fromProblem(problem, res.statusCode ?? 500));
    });
  });
}

/**
 * Runs one exec or console socket: the local terminal goes raw, keystrokes
 * stream in, output streams out, SIGWINCH becomes a resize. Resolves with the
 * remote exit code once the server reports it.
 */
export async function runTerminal(options: TerminalOptions): Promise<TerminalResult> {
  const { default: WebSocket } = await import('ws'); // read only by a command that opens a terminal
  const { stdin, stdout, stderr, tty } = options;
  const protocols = [WS_PROTOCOL, ...(options.token ? [BEARER_PROTOCOL_PREFIX + options.token] : [])];
  const ws = new WebSocket(options.url, protocols, { perMessageDeflate: false });
  let code: number | null = null;
  let session: string | null = null;
  let serverError: ApiError | null = null;
  const raw = tty && stdin.isTTY;
  // A terminal's output going to a file or a pipe: its questions to the terminal would stay in it, unanswered.
  const queries = tty && !stdout.isTTY ? new TerminalQueryFilter() : null;
  const control = (msg: ClientControl) => ws.readyState === ws.OPEN && ws.send(JSON.stringify(msg));

  const onInput = (data: Buffer) => {
    if (ws.readyState !== ws.OPEN) return;
    ws.send(tty ? data : Buffer.concat([Buffer.of(Channel.stdin), data]), { binary: true });
  };
  const onEnd = () => control({ type: 'eof' });
  const onResize = () =>
    stdout.columns > 0 && stdout.rows > 0 && control({ type: 'resize', cols: stdout.columns, rows: stdout.rows });
  const cleanup = () => {
    const held = queries?.flush();
    if (held?.length) stdout.write(held);
    stdin.off('data', onInput);
    stdin.off('end', onEnd);
    stdout.off('resize', onResize);
    if (raw) stdin.setRawMode(false);
    stdin.pause();
  };

  return new Promise<TerminalResult>((resolve, reject) => {
    ws.on('unexpected-response', (_req, res) => {
      void refusal(res).then((err) => {
        cleanup();
        reject(err);
      });
    });
    ws.on('error', (err) => {
      cleanup();
      reject(new ApiError('engine_unavailable', `cannot open the terminal socket at ${options.url} (${err.message})`));
    });
    ws.on('open', () => {
      if (raw) stdin.setRawMode(true);
      stdin.on('data', onInput);
      stdin.on('end', onEnd);
      stdin.resume();
      if (stdout.isTTY) stdout.on('resize', onResize);
    });
    ws.on('message', (data: Buffer, isBinary: boolean) => {
      if (isBinary) {
        if (tty) stdout.write(queries ? queries.push(data) : data);
        else if (data[0] === Channel.stderr) stderr.write(data.subarray(1));
        else stdout.write(data.subarray(1));
        return;
      }
      let msg: ServerControl;
      try {
        msg = JSON.parse(data.toString('utf8')) as ServerControl;
      } catch {
        return;
      }
      if (msg.type === 'ready') {
        session = msg.session;
        options.onReady?.(msg.session);
      } else if (msg.type === 'exit') code = msg.code;
      else if (msg.type === 'error') serverError = new ApiError('internal', msg.message);
    });
    ws.on('close', (closeCode, reason) => {
      cleanup();
      if (code !== null) return resolve({ code, session });
      if (serverError) return reject(serverError);
      const why = reason.toString() || `socket closed (${closeCode})`;
      const hint = session ? `the session may still be running: reattach with --session ${session}` : undefined;
      reject(new ApiError('internal', `terminal ended without an exit code: ${why}`, { hint }));
    });
  });
}
