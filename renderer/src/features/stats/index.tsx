import { IconActivity } from '@tabler/icons-react';
import { lazy } from 'react';
import type { FeatureModule } from '../../app/feature-module';

// The charts load when the tab first opens, not with the window.
const StatsTab = lazy(() => import('./stats-tab').then((m) => ({ default: m.StatsTab })));

export const stats: FeatureModule = {
  name: 'stats',
  tabs: [{ value: 'stats', label: 'Stats', icon: IconActivity, Component: StatsTab }],
};
