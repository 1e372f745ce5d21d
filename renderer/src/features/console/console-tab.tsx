import { Alert, Box as Pane, Button, Group, Tabs, Text } from '@mantine/core';
import { IconPlus } from '@tabler/icons-react';
import { useState } from 'react';
import type { DetailTabProps } from '../../app/feature-module';
import { useBoxActions } from '../boxes/use-box-actions';
import { useConsoleSessions } from './console-sessions';
import { dropLiveConsole, endLiveConsole } from './live-consoles';
import { TerminalView } from './terminal-view';

/** Several consoles in one box, as tabs; each stays open while the window does (live-consoles.ts), and reattaches after a reload. */
export function ConsoleTab({ box }: DetailTabProps) {
  const consoles = useConsoleSessions(box.project, box.name);
  const [active, setActive] = useState<string | null>(consoles.entries[0]?.key ?? null);
  const actions = useBoxActions(box.project);

  // A paused box is woken by the console itself.
  if (box.status !== 'running' && box.status !== 'paused') {
    return (
      <Alert color="gray" title={`${box.name} is ${box.status}`} role="alert">
        <Text size="sm">A console needs a running box.</Text>
        {box.status === 'stopped' && (
          <Button mt="sm" size="xs" onClick={() => void actions.resume([box.name])} loading={actions.pending}>
            Resume {box.name}
          </Button>
        )}
      </Alert>
    );
  }

  const current = consoles.entries.some((e) => e.key === active) ? active : (consoles.entries[0]?.key ?? null);
  const close = (key: string) => {
    endLiveConsole(key);
    consoles.remove(key);
  };

  return (
    <Tabs value={current} onChange={setActive} variant="outline" keepMounted>
      <Group gap={0} wrap="nowrap" align="end">
        <Tabs.List aria-label="Consoles">
          {consoles.entries.map((e, i) => (
            <Tabs.Tab key={e.key} value={e.key}>
              Console {i + 1}
            </Tabs.Tab>
          ))}
        </Tabs.List>
        <Button
          variant="subtle"
          size="xs"
          ml="xs"
          mb={4}
          leftSection={<IconPlus size={14} />}
          onClick={() => setActive(consoles.add())}
        >
          New console
        </Button>
      </Group>
      {consoles.entries.length === 0 && (
        <Text c="dimmed" p="md">
          No console open. Start one with “New console”.
        </Text>
      )}
      {consoles.entries.map((e, i) => (
        <Tabs.Panel key={e.key} value={e.key} pt="xs">
          <Pane h="calc(100vh - 300px)" mih={300}>
            <TerminalView
              project={box.project}
              box={box.name}
              entryKey={e.key}
              label={`Console ${i + 1}`}
              session={e.session}
              active={e.key === current}
              onSession={(s) => e.session !== s && consoles.setSession(e.key, s)}
              onNewSession={() => {
                dropLiveConsole(e.key);
                setActive(consoles.renew(e.key));
              }}
              onClose={() => close(e.key)}
            />
          </Pane>
        </Tabs.Panel>
      ))}
    </Tabs>
  );
}
