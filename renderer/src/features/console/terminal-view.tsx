import {
  ActionIcon,
  Alert,
  Badge,
  Button,
  Group,
  Stack,
  TextInput,
  Tooltip,
  useComputedColorScheme,
} from '@mantine/core';
import { IconArrowDown, IconArrowUp, IconClipboard, IconCopy, IconSearch, IconX } from '@tabler/icons-react';
import { FitAddon } from '@xterm/addon-fit';
import { SearchAddon } from '@xterm/addon-search';
import { WebglAddon } from '@xterm/addon-webgl';
import { WebLinksAddon } from '@xterm/addon-web-links';
import { Terminal, type ITheme } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';
import { useEffect, useRef, useState } from 'react';
import { useClient } from '../../api/client-context';
import { ConsoleSocket, type ConsoleState } from './console-socket';
import { OutputQueue } from './output-queue';

const DARK: ITheme = {
  background: '#1a1b1e',
  foreground: '#e4e6eb',
  cursor: '#e4e6eb',
  selectionBackground: '#4c6ef566',
};
const LIGHT: ITheme = {
  background: '#ffffff',
  foreground: '#1d2330',
  cursor: '#1d2330',
  selectionBackground: '#4c6ef544',
};

interface Props {
  project: string;
  box: string;
  label: string;
  session: string | null;
  active: boolean;
  onSession(session: string): void;
  onSocket(socket: ConsoleSocket | null): void;
  onNewSession(): void;
  /** Ends the session and removes its tab. */
  onClose(): void;
}

function openLink(_event: MouseEvent, uri: string): void {
  if (/^https?:\/\//i.test(uri)) window.open(uri, '_blank', 'noopener,noreferrer');
}

/** One console: an xterm.js terminal on a console socket, sized to its pane. */
/** The keystroke-echo bench's hooks (bench/scenarios/ui-echo.ts): output bytes as they arrive, and each render. */
interface EchoProbe {
  output?(bytes: Uint8Array): void;
  render?(cursorLine: () => string): void;
}

export function TerminalView({
  project,
  box,
  label,
  session,
  active,
  onSession,
  onSocket,
  onNewSession,
  onClose,
}: Props) {
  const client = useClient();
  const hostRef = useRef<HTMLDivElement>(null);
  const termRef = useRef<Terminal | null>(null);
  const searchRef = useRef<SearchAddon | null>(null);
  const fitRef = useRef<FitAddon | null>(null);
  const [state, setState] = useState<ConsoleState>({ kind: 'connecting' });
  const [query, setQuery] = useState('');
  const scheme = useComputedColorScheme('light');
  // Read once at mount: a reattach names its session; later changes come from this view itself.
  const initialSession = useRef(session);
  const callbacks = useRef({ onSession, onSocket });
  callbacks.current = { onSession, onSocket };

  useEffect(() => {
    const host = hostRef.current!;
    const term = new Terminal({
      screenReaderMode: true,
      cursorBlink: true,
      fontSize: 13,
      scrollback: 5000,
      fontFamily: "ui-monospace, 'DejaVu Sans Mono', Menlo, Consolas, monospace",
    });
    const fit = new FitAddon();
    const search = new SearchAddon();
    term.loadAddon(fit);
    term.loadAddon(search);
    term.loadAddon(new WebLinksAddon(openLink));
    term.open(host);
    try {
      const webgl = new WebglAddon();
      webgl.onContextLoss(() => webgl.dispose());
      term.loadAddon(webgl);
    } catch {
      // No WebGL here (no GPU, or a lost context): xterm's DOM renderer draws instead.
    }
    fit.fit();
    termRef.current = term;
    searchRef.current = search;
    fitRef.current = fit;

    // An opt-in probe for the keystroke-echo bench (bench/scenarios/ui-echo.ts); inert unless a page sets it.
    const probe = () => (window as { __boxdeskProbe?: EchoProbe }).__boxdeskProbe;
    term.onRender(() => {
      probe()?.render?.(
        () =>
          term.buffer.active.getLine(term.buffer.active.baseY + term.buffer.active.cursorY)?.translateToString(true) ??
          '',
      );
    });

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
          if (!attached) {
            attached = true;
            term.onData((d) => socket.input(d));
            term.onResize(({ cols, rows }) => socket.resize(cols, rows));
          }
        },
        onOutput: (bytes) => {
          probe()?.output?.(bytes);
          queue.push(bytes);
        },
      },
    );
    callbacks.current.onSocket(socket);

    term.attachCustomKeyEventHandler((e) => {
      if (e.type !== 'keydown' || !e.ctrlKey || !e.shiftKey) return true;
      if (e.code === 'KeyC') {
        void navigator.clipboard.writeText(term.getSelection());
        return false;
      }
      if (e.code === 'KeyV') {
        void navigator.clipboard.readText().then((t) => term.paste(t));
        return false;
      }
      return true;
    });

    let frame: number | null = null;
    const observer = new ResizeObserver(() => {
      if (frame !== null) return;
      frame = requestAnimationFrame(() => {
        frame = null;
        if (host.offsetWidth > 0 && host.offsetHeight > 0) fit.fit();
      });
    });
    observer.observe(host);

    return () => {
      observer.disconnect();
      if (frame !== null) cancelAnimationFrame(frame);
      socket.detach();
      callbacks.current.onSocket(null);
      queue.dispose();
      term.dispose();
      termRef.current = null;
    };
  }, [client, project, box]);

  useEffect(() => {
    if (termRef.current) termRef.current.options.theme = scheme === 'dark' ? DARK : LIGHT;
  }, [scheme]);

  useEffect(() => {
    if (!active) return;
    const t = setTimeout(() => {
      fitRef.current?.fit();
      termRef.current?.focus();
    }, 0);
    return () => clearTimeout(t);
  }, [active]);

  const find = (forward: boolean) => {
    if (!query) return;
    if (forward) searchRef.current?.findNext(query);
    else searchRef.current?.findPrevious(query);
  };

  return (
    <Stack gap={6} h="100%">
      <Group gap="xs" justify="space-between" wrap="nowrap">
        <Group gap={4} wrap="nowrap">
          <TextInput
            size="xs"
            aria-label={`Search ${label}`}
            placeholder="Search output"
            leftSection={<IconSearch size={14} />}
            value={query}
            onChange={(e) => setQuery(e.currentTarget.value)}
            onKeyDown={(e) => e.key === 'Enter' && find(!e.shiftKey)}
          />
          <Tooltip label="Previous match">
            <ActionIcon variant="default" aria-label="Previous match" onClick={() => find(false)}>
              <IconArrowUp size={14} />
            </ActionIcon>
          </Tooltip>
          <Tooltip label="Next match">
            <ActionIcon variant="default" aria-label="Next match" onClick={() => find(true)}>
              <IconArrowDown size={14} />
            </ActionIcon>
          </Tooltip>
          <Tooltip label="Copy the selection (Ctrl+Shift+C)">
            <ActionIcon
              variant="default"
              aria-label="Copy the selection"
              onClick={() => void navigator.clipboard.writeText(termRef.current?.getSelection() ?? '')}
            >
              <IconCopy size={14} />
            </ActionIcon>
          </Tooltip>
          <Tooltip label="Paste (Ctrl+Shift+V)">
            <ActionIcon
              variant="default"
              aria-label="Paste"
              onClick={() => void navigator.clipboard.readText().then((t) => termRef.current?.paste(t))}
            >
              <IconClipboard size={14} />
            </ActionIcon>
          </Tooltip>
        </Group>
        <Group gap="xs" wrap="nowrap">
          <Badge
            variant="dot"
            color={state.kind === 'open' ? 'green' : state.kind === 'ended' ? 'gray' : 'orange'}
            role="status"
            aria-label={`${label}: ${state.kind}`}
          >
            {state.kind === 'open'
              ? 'connected'
              : state.kind === 'reconnecting'
                ? `reconnecting (${state.attempt})…`
                : state.kind}
          </Badge>
          <Tooltip label="End this session and close its tab">
            <ActionIcon variant="default" aria-label={`Close ${label}`} onClick={onClose}>
              <IconX size={14} />
            </ActionIcon>
          </Tooltip>
        </Group>
      </Group>
      {state.kind === 'ended' && (
        <Alert color="gray" title="This console session has ended" role="alert">
          <Group justify="space-between">
            <span>{state.reason}</span>
            <Button size="xs" onClick={onNewSession}>
              Start a new session
            </Button>
          </Group>
        </Alert>
      )}
      <div
        ref={hostRef}
        className="terminal-host"
        role="region"
        aria-label={label}
        style={{ flex: 1, background: (scheme === 'dark' ? DARK : LIGHT).background }}
      />
    </Stack>
  );
}
