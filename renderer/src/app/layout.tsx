import {
  ActionIcon,
  AppShell,
  Button,
  Group,
  Kbd,
  Tooltip,
  useComputedColorScheme,
  useMantineColorScheme,
} from '@mantine/core';
import { spotlight } from '@mantine/spotlight';
import { IconLogout, IconMoon, IconSearch, IconSun } from '@tabler/icons-react';
import { Navigate, Route, Routes } from 'react-router';
import { useApi } from '../api/client-context';
import { useEvents, type EventStreamState } from '../api/events';
import { useSystem } from '../api/system';
import { AppTitle } from './app-title';
import { CommandPalette } from './command-palette';
import { EngineHealth } from './engine-health';
import { lastProject, paths } from './project';
import { ProjectSwitcher } from './project-switcher';
import { useRegistry } from './registry';
import { Sidebar } from './sidebar';

function ThemeToggle() {
  const { setColorScheme } = useMantineColorScheme();
  const computed = useComputedColorScheme('light');
  const next = computed === 'dark' ? 'light' : 'dark';
  return (
    <Tooltip label={`Switch to the ${next} theme`}>
      <ActionIcon
        variant="default"
        size="lg"
        aria-label={`Switch to the ${next} theme`}
        onClick={() => setColorScheme(next)}
      >
        {computed === 'dark' ? <IconSun size={18} /> : <IconMoon size={18} />}
      </ActionIcon>
    </Tooltip>
  );
}

/** The title and project on the left; the engine's health, the palette, the theme and sign-out on the right. */
function Header({ stream }: { stream: EventStreamState }) {
  const { signOut } = useApi();
  const system = useSystem();
  return (
    <AppShell.Header px="md">
      <Group h="100%" justify="space-between" wrap="nowrap">
        <Group wrap="nowrap">
          <AppTitle size="h3" />
          <ProjectSwitcher />
        </Group>
        <Group wrap="nowrap" gap="sm">
          <EngineHealth stream={stream} base={system.data?.default_base} />
          <Button
            variant="default"
            leftSection={<IconSearch size={16} />}
            rightSection={<Kbd size="xs">Ctrl K</Kbd>}
            onClick={() => spotlight.open()}
            aria-label="Open the command palette"
          >
            Search
          </Button>
          <ThemeToggle />
          <Tooltip label="Sign out">
            <ActionIcon variant="default" size="lg" aria-label="Sign out" onClick={() => signOut()}>
              <IconLogout size={18} />
            </ActionIcon>
          </Tooltip>
        </Group>
      </Group>
    </AppShell.Header>
  );
}

/** The signed-in window: header, sidebar and the features' routes, kept current by the event stream. */
export function AppLayout() {
  const registry = useRegistry();
  const stream = useEvents(registry.events);
  return (
    <AppShell header={{ height: 56 }} navbar={{ width: 200, breakpoint: 0 }} padding="md">
      <Header stream={stream} />
      <Sidebar />
      <AppShell.Main>
        <Routes>
          {[...registry.pages, ...registry.routes].map((r) => (
            <Route key={r.route} path={r.route} element={r.element} />
          ))}
          <Route path="*" element={<Navigate to={paths.boxes(lastProject())} replace />} />
        </Routes>
      </AppShell.Main>
      <CommandPalette />
    </AppShell>
  );
}
