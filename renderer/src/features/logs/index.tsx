import { IconFileText } from '@tabler/icons-react';
import type { FeatureModule } from '../../app/feature-module';
import { LogsTab } from './logs-tab';

export const logs: FeatureModule = {
  name: 'logs',
  tabs: [{ value: 'logs', label: 'Logs', icon: IconFileText, Component: LogsTab }],
};
