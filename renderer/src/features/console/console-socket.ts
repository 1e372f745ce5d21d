import type { BoxdeskClient } from '../../../../shared/client';
import {
  BEARER_PROTOCOL_PREFIX,
  WS_PROTOCOL,
  type ClientControl,
  type ServerControl,
} from '../../../../shared/protocol';

export type ConsoleState =
  | { kind: 'connecting' }
  | { kind: 'open'; session: string }
  | { kind: 'reconnecting'; attempt: number }
  | { kind: 'ended'; reason: string };

export interface ConsoleSocketEvents {
  onState(state: ConsoleState): void;
  /** The server's `ready`: a fresh session, or a reattach whose replay follows. */
  onReady(session: string, replayedBytes: number): void;
  onOutput(bytes: Uint8Array): void;
}

/** A close code the server treats as a drop, not an end: the session waits for a reattach. */
const DETACH_CODE = 4001;
const RETRY_MS = [300, 1000, 2000, 4000, 8000];

/**
 * One console session over the WebSocket protocol of docs/protocol.md:
 * binary frames for bytes, JSON text frames for control. Reattaches with
 * `?session=` after a drop; `detach()` leaves the session running (a tab
 * switch, a reload), `end()` ends it.
 */
export class ConsoleSocket {
  private ws: WebSocket | null = null;
  private session: string | null;
  private attempt = 0;
  private closedByUs = false;
  private ended = false;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private size: { cols: number; rows: number };
  private readonly encoder = new TextEncoder();

  constructor(
    private readonly client: BoxdeskClient,
    private readonly project: string,
    private readonly box: string,
    session: string | null,
    size: { cols: number; rows: number },
    private readonly events: ConsoleSocketEvents,
  ) {
    this.session = session;
    this.size = size;
    this.connect();
  }

  private connect(): void {
    const reattaching = this.session !== null;
    const query: [string, string | number][] = this.session
      ? [['session', this.session]]
      : [
          ['cols', this.size.cols],
          ['rows', this.size.rows],
        ];
    const ws = new WebSocket(this.client.socketUrl(this.project, this.box, 'console', query), [
      WS_PROTOCOL,
      `${BEARER_PROTOCOL_PREFIX}${this.client.token ?? ''}`,
    ]);
    ws.binaryType = 'arraybuffer';
    this.ws = ws;
    let opened = false;
    let endReason: string | null = null;
    ws.onopen = () => {
      opened = true;
    };
    ws.onmessage = (e: MessageEvent<ArrayBuffer | string>) => {
      if (typeof e.data !== 'string') {
        this.events.onOutput(new Uint8Array(e.data));
        return;
      }
      const msg = JSON.parse(e.data) as ServerControl;
      if (msg.type === 'ready') {
        this.session = msg.session;
        this.attempt = 0;
        this.events.onReady(msg.session, msg.replayed_bytes);
        this.events.onState({ kind: 'open', session: msg.session });
        // A reattach names no size; the pane may have changed while we were away.
        if (reattaching) this.send({ type: 'resize', ...this.size });
      } else if (msg.type === 'exit') endReason = `The shell exited with code ${msg.code}.`;
      else if (msg.type === 'error' && msg.code === 'session_ended') endReason = `The session ended: ${msg.message}`;
    };
    ws.onclose = (e) => {
      if (this.ws !== ws) return;
      this.ws = null;
      if (this.closedByUs || this.ended) return;
      if (endReason || e.code === 1000) return this.finish(endReason ?? 'The session ended.');
      if (e.code === 4000) return this.finish('This session was opened in another window or tab.');
      if (!opened && this.session) return this.finish('The session has ended (it was no longer there to reattach to).');
      if (!opened && this.attempt >= 2)
        return this.finish('Could not open a console: the core refused the connection. Is the box running?');
      const delay = RETRY_MS[Math.min(this.attempt, RETRY_MS.length - 1)]!;
      this.attempt++;
      this.events.onState({ kind: 'reconnecting', attempt: this.attempt });
      this.retryTimer = setTimeout(() => this.connect(), delay);
    };
  }

  private finish(reason: string): void {
    this.ended = true;
    clearTimeout(this.retryTimer);
    this.events.onState({ kind: 'ended', reason });
  }

  private send(message: ClientControl): void {
    if (this.ws?.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(message));
  }

  /** Keystrokes and pastes, as bytes. */
  input(data: string): void {
    if (this.ws?.readyState === WebSocket.OPEN) this.ws.send(this.encoder.encode(data));
  }

  resize(cols: number, rows: number): void {
    this.size = { cols, rows };
    this.send({ type: 'resize', cols, rows });
  }

  /** Leave the session running for a reattach (switching tabs, reloading). */
  detach(): void {
    this.closedByUs = true;
    clearTimeout(this.retryTimer);
    this.ws?.close(DETACH_CODE, 'detached');
  }

  /** End the session: its processes in the box are killed. */
  end(reason = 'You closed this console.'): void {
    this.closedByUs = true;
    this.ws?.close(1000, 'closed');
    this.finish(reason);
  }
}
