import { IconBox, IconDatabase, IconRocket, IconSettings, IconStack2, type Icon } from '@tabler/icons-react';
import type { ReactNode } from 'react';
import { BasesPage } from '../features/bases/bases-page';
import { BoxDetailPage } from '../features/boxes/box-detail-page';
import { BoxListPage } from '../features/boxes/box-list-page';
import { ServicesPage } from '../features/services/services-page';
import { SettingsPage } from '../features/settings/settings-page';
import { VolumesPage } from '../features/volumes/volumes-page';
import { paths } from './project';

/**
 * The sidebar, in order. A new page (Snapshots, Volumes, Services) is one
 * entry here: its label, icon, route pattern, where the link goes for the
 * current project, and the element to render.
 */
export interface SidebarPage {
  label: string;
  icon: Icon;
  route: string;
  href(project: string): string;
  element: ReactNode;
}

export const SIDEBAR_PAGES: SidebarPage[] = [
  { label: 'Boxes', icon: IconBox, route: '/projects/:project/boxes', href: paths.boxes, element: <BoxListPage /> },
  {
    label: 'Volumes',
    icon: IconDatabase,
    route: '/projects/:project/volumes',
    href: paths.volumes,
    element: <VolumesPage />,
  },
  {
    label: 'Services',
    icon: IconRocket,
    route: '/projects/:project/services',
    href: paths.services,
    element: <ServicesPage />,
  },
  { label: 'Bases', icon: IconStack2, route: '/bases', href: () => '/bases', element: <BasesPage /> },
  { label: 'Settings', icon: IconSettings, route: '/settings', href: () => '/settings', element: <SettingsPage /> },
];

/** Routes that are not in the sidebar. */
export const OTHER_ROUTES: { route: string; element: ReactNode }[] = [
  { route: '/projects/:project/boxes/:name/:tab?', element: <BoxDetailPage /> },
];
