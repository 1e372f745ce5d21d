import { IconSettings } from '@tabler/icons-react';
import type { FeatureModule } from '../../app/feature-module';
import { SettingsPage } from './settings-page';

export const settings: FeatureModule = {
  name: 'settings',
  pages: [
    { label: 'Settings', icon: IconSettings, route: '/settings', href: () => '/settings', element: <SettingsPage /> },
  ],
};
