import { ActionIcon, Badge, Group, TextInput, Tooltip } from '@mantine/core';
import { IconArrowDown, IconArrowUp, IconClipboard, IconCopy, IconSearch, IconX } from '@tabler/icons-react';
import type { SearchAddon } from '@xterm/addon-search';
import type { Terminal } from '@xterm/xterm';
import { useState, type ReactNode, type RefObject } from 'react';
import type { ConsoleState } from './console-socket';

function ToolButton({
  label,
  tip,
  onClick,
  children,
}: {
  label: string;
  tip?: string;
  onClick(): void;
  children: ReactNode;
}) {
  return (
    <Tooltip label={tip ?? label}>
      <ActionIcon variant="default" aria-label={label} onClick={onClick}>
        {children}
      </ActionIcon>
    </Tooltip>
  );
}

const stateText = (s: ConsoleState) =>
  s.kind === 'open' ? 'connected' : s.kind === 'reconnecting' ? `reconnecting (${s.attempt})…` : s.kind;

/** Search the output, copy and paste, the connection's state, and close. */
export function TerminalToolbar({
  label,
  state,
  termRef,
  searchRef,
  onClose,
}: {
  label: string;
  state: ConsoleState;
  termRef: RefObject<Terminal | null>;
  searchRef: RefObject<SearchAddon | null>;
  onClose(): void;
}) {
  const [query, setQuery] = useState('');
  const find = (forward: boolean) => {
    if (!query) return;
    if (forward) searchRef.current?.findNext(query);
    else searchRef.current?.findPrevious(query);
  };
  return (
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
        <ToolButton label="Previous match" onClick={() => find(false)}>
          <IconArrowUp size={14} />
        </ToolButton>
        <ToolButton label="Next match" onClick={() => find(true)}>
          <IconArrowDown size={14} />
        </ToolButton>
        <ToolButton
          label="Copy the selection"
          tip="Copy the selection (Ctrl+Shift+C)"
          onClick={() => void navigator.clipboard.writeText(termRef.current?.getSelection() ?? '')}
        >
          <IconCopy size={14} />
        </ToolButton>
        <ToolButton
          label="Paste"
          tip="Paste (Ctrl+Shift+V)"
          onClick={() => void navigator.clipboard.readText().then((t) => termRef.current?.paste(t))}
        >
          <IconClipboard size={14} />
        </ToolButton>
      </Group>
      <Group gap="xs" wrap="nowrap">
        <Badge
          variant="dot"
          color={state.kind === 'open' ? 'green' : state.kind === 'ended' ? 'gray' : 'orange'}
          role="status"
          aria-label={`${label}: ${state.kind}`}
        >
          {stateText(state)}
        </Badge>
        <ToolButton label={`Close ${label}`} tip="End this session and close its tab" onClick={onClose}>
          <IconX size={14} />
        </ToolButton>
      </Group>
    </Group>
  );
}
