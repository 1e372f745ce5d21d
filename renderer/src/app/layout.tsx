import {
  ActionIcon,
  AppShell,
  Button,
  Group,
  Kbd,
  NavLink,
  Text,
  Title,
  Tooltip,
  useComputedColorScheme,
  useMantineColorScheme,
} from '@mantine/core';
import { spotlight } from '@mantine/spotlight';
import { IconLogout, IconMoon, IconSearch, IconSun } from '@tabler/icons-react';
import { Navigate, Route, Routes, useLocation, useNavigate } from 'react-router';
import { useApi } from '../api/client-context';
import { useEvents } from '../api/events';
import { useVersion } from '../api/system';
import { CommandPalette } from '../features/palette/command-palette';
import { EngineHealth } from './engine-health';
import { OTHER_ROUTES, SIDEBAR_PAGES } from './pages';
import { lastProject, paths, useProject } from './project';
import { ProjectSwitcher } from './project-switcher';

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

function Sidebar() {
  const project = useProject();
  const location = useLocation();
  const navigate = useNavigate();
  const version = useVersion();
  return (
    <AppShell.Navbar p="xs" component="nav" aria-label="Main">
      <AppShell.Section grow>
        {SIDEBAR_PAGES.map((page) => {
          const href = page.href(project);
          const active = location.pathname === href || location.pathname.startsWith(`${href}/`);
          return (
            <NavLink
              key={page.label}
              href={`#${href}`}
              label={page.label}
              leftSection={<page.icon size={18} stroke={1.6} />}
              active={active}
              aria-current={active ? 'page' : undefined}
              onClick={(e) => {
                e.preventDefault();
                void navigate(href);
              }}
            />
          );
        })}
      </AppShell.Section>
      <AppShell.Section>
        <Text size="xs" c="dimmed" px="sm">
          Boxdesk {version.data ? `v${version.data.version}` : ''}
        </Text>
      </AppShell.Section>
    </AppShell.Navbar>
  );
}

export function AppLayout() {
  const { signOut } = useApi();
  const stream = useEvents();
  return (
    <AppShell header={{ height: 56 }} navbar={{ width: 200, breakpoint: 0 }} padding="md">
      <AppShell.Header px="md">
        <Group h="100%" justify="space-between" wrap="nowrap">
          <Group wrap="nowrap">
            <Title order={1} size="h3">
              Boxdesk
            </Title>
            <ProjectSwitcher />
          </Group>
          <Group wrap="nowrap" gap="sm">
            <EngineHealth stream={stream} />
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
      <Sidebar />
      <AppShell.Main>
        <Routes>
          {SIDEBAR_PAGES.map((p) => (
            <Route key={p.route} path={p.route} element={p.element} />
          ))}
          {OTHER_ROUTES.map((r) => (
            <Route key={r.route} path={r.route} element={r.element} />
          ))}
          <Route path="*" element={<Navigate to={paths.boxes(lastProject())} replace />} />
        </Routes>
      </AppShell.Main>
      <CommandPalette />
    </AppShell>
  );
}
