import {
  IconActivity,
  IconCamera,
  IconDatabase,
  IconFileText,
  IconFolders,
  IconInfoCircle,
  IconTerminal2,
  IconWorld,
  type Icon,
} from '@tabler/icons-react';
import { lazy, type ComponentType } from 'react';
import type { Box } from '../../../../shared/schemas/box';
import { LogsTab } from '../logs/logs-tab';
import { PublishTab } from '../publishing/publish-tab';
import { VolumeMountsTab } from '../volumes/volume-mounts-tab';
import { OverviewTab } from './overview-tab';

// xterm.js and the charts load when their tab first opens, not with the window.
const ConsoleTab = lazy(() => import('../console/console-tab').then((m) => ({ default: m.ConsoleTab })));
const FilesTab = lazy(() => import('../files/files-tab').then((m) => ({ default: m.FilesTab })));
const SnapshotsTab = lazy(() => import('../snapshots/snapshots-tab').then((m) => ({ default: m.SnapshotsTab })));
const StatsTab = lazy(() => import('../stats/stats-tab').then((m) => ({ default: m.StatsTab })));

export interface DetailTabProps {
  box: Box;
}

/**
 * The tabs of a box's page, in order; the value is the last part of the
 * address (`#/projects/p/boxes/web/console`). A new tab (Files, Snapshots)
 * is one entry here.
 */
export interface DetailTab {
  value: string;
  label: string;
  icon: Icon;
  Component: ComponentType<DetailTabProps>;
}

export const DETAIL_TABS: DetailTab[] = [
  { value: 'overview', label: 'Overview', icon: IconInfoCircle, Component: OverviewTab },
  { value: 'logs', label: 'Logs', icon: IconFileText, Component: LogsTab },
  { value: 'console', label: 'Console', icon: IconTerminal2, Component: ConsoleTab },
  { value: 'stats', label: 'Stats', icon: IconActivity, Component: StatsTab },
  { value: 'files', label: 'Files', icon: IconFolders, Component: FilesTab },
  { value: 'snapshots', label: 'Snapshots', icon: IconCamera, Component: SnapshotsTab },
  { value: 'volumes', label: 'Volumes', icon: IconDatabase, Component: VolumeMountsTab },
  { value: 'publish', label: 'Publish', icon: IconWorld, Component: PublishTab },
];
