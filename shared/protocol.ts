import { parseJsonObject } from './json-object';

/**
 * The terminal protocol of the exec and console WebSockets (docs/protocol.md).
 * Binary frames carry bytes; text frames carry these JSON control messages.
 */

/** With tty=0 the first byte of each binary frame names the channel. */
export const Channel = { stdin: 0, stdout: 1, stderr: 2 } as const;

/** Offer this with `bearer.<token>`; the server selects it, so the token is never echoed. */
export const WS_PROTOCOL = 'boxdesk.v1';
export const BEARER_PROTOCOL_PREFIX = 'bearer.';

export const SIGNALS = [
  'SIGINT',
  'SIGTERM',
  'SIGKILL',
  'SIGHUP',
  'SIGQUIT',
  'SIGUSR1',
  'SIGUSR2',
  'SIGWINCH',
  'SIGTSTP',
  'SIGCONT',
] as const;
export type SignalName = (typeof SIGNALS)[number];

export type ClientControl =
  { type: 'resize'; cols: number; rows: number } | { type: 'signal'; name: SignalName } | { type: 'eof' };

export type ServerControl =
  | { type: 'ready'; session: string; replayed_bytes: number }
  | { type: 'exit'; code: number }
  | { type: 'error'; code: string; message: string };

export function parseClientControl(text: string): ClientControl | null {
  const msg = parseJsonObject(text);
  if (msg === null) return null;
  switch (msg.type) {
    case 'resize': {
      const { cols, rows } = msg;
      const ok = (n: unknown) => typeof n === 'number' && Number.isInteger(n) && n > 0 && n <= 10000;
      return ok(cols) && ok(rows) ? { type: 'resize', cols: cols as number, rows: rows as number } : null;
    }
    case 'signal':
      return SIGNALS.includes(msg.name as SignalName) ? { type: 'signal', name: msg.name as SignalName } : null;
    case 'eof':
      return { type: 'eof' };
    default:
      return null;
  }
}
