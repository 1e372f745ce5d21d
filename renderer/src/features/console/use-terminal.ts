import type { FitAddon } from '@xterm/addon-fit';
import type { SearchAddon } from '@xterm/addon-search';
import type { Terminal } from '@xterm/xterm';
import { useEffect, useRef, useState } from 'react';
import { useClient } from '../../api/client-context';
import type { ConsoleState } from './console-socket';
import { LiveConsole, liveConsole } from './live-consoles';
import { fitOnResize } from './terminal-setup';

interface Options {
  project: string;
  box: string;
  /** The console tab's key: its live console outlives this view (live-consoles.ts). */
  entryKey: string;
  /** Read once, when the live console is made: a reattach names its session. */
  session: string | null;
  onSession(session: string): void;
}

/**
 * Shows a console tab's live console: its terminal in this view's host, sized to it. Unmounting
 * parks the console (its socket stays attached, its scrollback grows) until the view comes back.
 */
export function useTerminal({ project, box, entryKey, session, onSession }: Options) {
  const client = useClient();
  const hostRef = useRef<HTMLDivElement>(null);
  const termRef = useRef<Terminal | null>(null);
  const searchRef = useRef<SearchAddon | null>(null);
  const fitRef = useRef<FitAddon | null>(null);
  const [state, setState] = useState<ConsoleState>({ kind: 'connecting' });
  const initialSession = useRef(session);
  const onSessionRef = useRef(onSession);
  onSessionRef.current = onSession;

  useEffect(() => {
    const host = hostRef.current!;
    const live = liveConsole(
      entryKey,
      client,
      () => new LiveConsole(client, project, box, initialSession.current, host),
    );
    termRef.current = live.term;
    searchRef.current = live.search;
    fitRef.current = live.fit;
    const park = live.show(host, { onState: setState, onSession: (id) => onSessionRef.current(id) });
    live.fit.fit();
    const unobserve = fitOnResize(host, live.fit);
    return () => {
      unobserve();
      park();
      termRef.current = null;
    };
  }, [client, project, box, entryKey]);

  return { hostRef, termRef, searchRef, fitRef, state };
}
