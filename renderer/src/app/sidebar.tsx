import { AppShell, NavLink, Text } from '@mantine/core';
import { useLocation, useNavigate } from 'react-router';
import { useVersion } from '../api/system';
import { useProject } from './project';
import { useRegistry } from './registry';

/** The features' pages, the current one marked, and the core's version. */
export function Sidebar() {
  const project = useProject();
  const location = useLocation();
  const navigate = useNavigate();
  const version = useVersion();
  const { pages } = useRegistry();
  return (
    <AppShell.Navbar p="xs" component="nav" aria-label="Main">
      <AppShell.Section grow>
        {pages.map((page) => {
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
