import type { FitAddon } from '@xterm/addon-fit';
import type { SearchAddon } from '@xterm/addon-search';
import type { Terminal } from '@xterm/xterm';
import { useEffect, useRef, useState } from 'react';
import { useClient } from '../../api/client-context';
import { ConsoleSocket, type ConsoleState } from './console-socket';
import { OutputQueue } from './output-queue';
import { createTerminal, fitOnResize, probe } from './terminal-setup';

interface Options {
  project: string;
  box: string;
  /** Read once at mount: a reattach names its session; later changes come from this view itself. */
  session: string | null;
  onSession(session: string): void;
  onSocket(socket: ConsoleSocket | null): void;
}

/**
 * A terminal on a console socket: output goes through the OutputQueue, and
 * the keyboard is wired only once the session is ready. Unmounting detaches
 * (the session waits for a reattach) and disposes the terminal.
 */
export function useTerminal({ project, box, session, onSession, onSocket }: Options) {
  const client = useClient();
  const hostRef = useRef<HTMLDivElement>(null);
  const termRef = useRef<Terminal | null>(null);
  const searchRef = useRef<SearchAddon | null>(null);
  const fitRef = useRef<FitAddon | null>(null);
  const [state, setState] = useState<ConsoleState>({ kind: 'connecting' });
  const initialSession = useRef(session);
  const callbacks = useRef({ onSession, onSocket });
  callbacks.current = { onSession, onSocket };

  useEffect(() => {
    const host = hostRef.current!;
    const { term, fit, search } = createTerminal(host);
    termRef.current = term;
    searchRef.current = search;
    fitRef.current = fit;
    const queue = new OutputQueue(term);
    let attached = false;
    const socket = new ConsoleSocket(
      client,
      project,
      box,
      initialSession.current,
      { cols: term.cols, rows: term.rows },
      {
        onState: setState,
        onReady: (id, replayed) => {
          // A replay repaints the screen from the session's own output.
          if (replayed > 0) {
            queue.clear();
            term.reset();
          }
          callbacks.current.onSession(id);
          if (attached) return;
          attached = true;
          term.onData((d) => socket.input(d));
          term.onResize(({ cols, rows }) => socket.resize(cols, rows));
        },
        onOutput: (bytes) => {
          probe()?.output?.(bytes);
          queue.push(bytes);
        },
      },
    );
    callbacks.current.onSocket(socket);
    const unobserve = fitOnResize(host, fit);

    return () => {
      unobserve();
      socket.detach();
      callbacks.current.onSocket(null);
      queue.dispose();
      term.dispose();
      termRef.current = null;
    };
  }, [client, project, box]);

  return { hostRef, termRef, searchRef, fitRef, state };
}
