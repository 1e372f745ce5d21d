import type { FitAddon } from '@xterm/addon-fit';
import type { SearchAddon } from '@xterm/addon-search';
import type { Terminal } from '@xterm/xterm';
import type { BoxdeskClient } from '../../../../shared/client';
import { ConsoleSocket, type ConsoleState } from './console-socket';
import { OutputQueue } from './output-queue';
import { createTerminal, probe } from './terminal-setup';

interface View {
  onState(state: ConsoleState): void;
  onSession(session: string): void;
}

/**
 * A console the window keeps open whatever page or tab is in front: its terminal and socket live
 * here, not in the view. A view shows it (its terminal's element moves into the view's host) and
 * parks it when it unmounts, so the socket stays attached (the core never starts the session's
 * grace period) and the scrollback keeps growing. It ends when the user closes its tab, starts a
 * new session in it, or signs in again; a box that stops ends its session from the core's side.
 */
export class LiveConsole {
  readonly term: Terminal;
  readonly fit: FitAddon;
  readonly search: SearchAddon;
  readonly socket: ConsoleSocket;
  private readonly stopBlinking: () => void;
  private readonly element = document.createElement('div');
  private readonly queue: OutputQueue;
  private state: ConsoleState = { kind: 'connecting' };
  private session: string | null;
  private view: View | null = null;

  constructor(
    readonly client: BoxdeskClient,
    project: string,
    box: string,
    session: string | null,
    host: HTMLElement,
  ) {
    this.session = session;
    this.element.style.height = '100%';
    host.appendChild(this.element);
    ({
      term: this.term,
      fit: this.fit,
      search: this.search,
      stopBlinking: this.stopBlinking,
    } = createTerminal(this.element));
    const queue = (this.queue = new OutputQueue(this.term));
    let attached = false;
    this.socket = new ConsoleSocket(
      client,
      project,
      box,
      session,
      { cols: this.term.cols, rows: this.term.rows },
      {
        onState: (state) => {
          this.state = state;
          this.view?.onState(state);
        },
        onReady: (id, replayed) => {
          // A replay repaints the screen from the session's own output.
          if (replayed > 0) {
            queue.clear();
            this.term.reset();
          }
          this.session = id;
          this.view?.onSession(id);
          if (attached) return;
          attached = true;
          this.term.onData((d) => this.socket.input(d));
          this.term.onResize(({ cols, rows }) => this.socket.resize(cols, rows));
        },
        onOutput: (bytes) => {
          probe()?.output?.(bytes);
          queue.push(bytes);
        },
      },
    );
  }

  /** Shows the terminal in `host` and tells `view` its state; returns the undo (parks it). */
  show(host: HTMLElement, view: View): () => void {
    if (this.element.parentElement !== host) host.appendChild(this.element);
    this.view = view;
    view.onState(this.state);
    if (this.session) view.onSession(this.session);
    return () => {
      if (this.view === view) this.view = null;
      parking().appendChild(this.element);
    };
  }

  /** Ends the session (the user closed its tab) and frees the terminal. */
  end(): void {
    this.socket.end();
    this.dispose();
  }

  /** Frees the terminal; a session still running waits out its grace period on the core. */
  dispose(): void {
    this.socket.detach();
    this.queue.dispose();
    this.stopBlinking();
    this.term.dispose();
    this.element.remove();
  }
}

/** Where parked terminals wait: in the document (xterm keeps its measurements), never shown. */
function parking(): HTMLElement {
  let el = document.getElementById('parked-consoles');
  if (!el) {
    el = document.createElement('div');
    el.id = 'parked-consoles';
    el.hidden = true;
    document.body.appendChild(el);
  }
  return el;
}

const live = new Map<string, LiveConsole>();

/** The live console of a console tab (its key), made on first show; one made with another client is replaced. */
export function liveConsole(key: string, client: BoxdeskClient, make: () => LiveConsole): LiveConsole {
  const found = live.get(key);
  if (found?.client === client) return found;
  found?.dispose();
  const made = make();
  live.set(key, made);
  return made;
}

/** The user closed the tab: its session ends. */
export function endLiveConsole(key: string): void {
  live.get(key)?.end();
  live.delete(key);
}

/** The tab starts a new session (its old one ended): the old terminal goes. */
export function dropLiveConsole(key: string): void {
  live.get(key)?.dispose();
  live.delete(key);
}
