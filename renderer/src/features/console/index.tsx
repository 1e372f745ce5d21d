import { IconTerminal2 } from '@tabler/icons-react';
import { lazy } from 'react';
import type { FeatureModule } from '../../app/feature-module';

// xterm.js loads when the tab first opens, not with the window.
const ConsoleTab = lazy(() => import('./console-tab').then((m) => ({ default: m.ConsoleTab })));

export const consoles: FeatureModule = {
  name: 'console',
  tabs: [{ value: 'console', label: 'Console', icon: IconTerminal2, Component: ConsoleTab }],
};
