import { Alert, Button, Group, Stack, useComputedColorScheme } from '@mantine/core';
import { useEffect } from 'react';
import { DARK, LIGHT } from './terminal-setup';
import { TerminalToolbar } from './terminal-toolbar';
import { useTerminal } from './use-terminal';

interface Props {
  project: string;
  box: string;
  /** The console tab's key (its live console). */
  entryKey: string;
  label: string;
  session: string | null;
  active: boolean;
  onSession(session: string): void;
  onNewSession(): void;
  /** Ends the session and removes its tab. */
  onClose(): void;
}

/** One console: an xterm.js terminal on a console socket, sized to its pane. */
export function TerminalView({ label, active, onNewSession, onClose, ...options }: Props) {
  const { hostRef, termRef, searchRef, fitRef, state } = useTerminal(options);
  const scheme = useComputedColorScheme('light');
  const theme = scheme === 'dark' ? DARK : LIGHT;

  useEffect(() => {
    if (termRef.current) termRef.current.options.theme = theme;
  }, [theme]);
  useEffect(() => {
    if (!active) return;
    const t = setTimeout(() => {
      fitRef.current?.fit();
      termRef.current?.focus();
    }, 0);
    return () => clearTimeout(t);
  }, [active]);

  return (
    <Stack gap={6} h="100%">
      <TerminalToolbar label={label} state={state} termRef={termRef} searchRef={searchRef} onClose={onClose} />
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
        style={{ flex: 1, background: theme.background }}
      />
    </Stack>
  );
}
