import { IconActivity, IconFileText, IconInfoCircle, IconTerminal2, type Icon } from '@tabler/icons-react';
import type { ComponentType } from 'react';
import type { Box } from '../../../../shared/schemas/box';
import { ConsoleTab } from '../console/console-tab';
import { LogsTab } from '../logs/logs-tab';
import { StatsTab } from '../stats/stats-tab';
import { OverviewTab } from './overview-tab';

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
];
