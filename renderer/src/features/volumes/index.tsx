import { IconDatabase } from '@tabler/icons-react';
import type { FeatureModule } from '../../app/feature-module';
import { volumesPath } from './attach-volume-form';
import { volumeEvents } from './volume-events';
import { VolumeMountsTab } from './volume-mounts-tab';
import { VolumesPage } from './volumes-page';

export const volumes: FeatureModule = {
  name: 'volumes',
  pages: [
    {
      label: 'Volumes',
      icon: IconDatabase,
      route: '/projects/:project/volumes',
      href: volumesPath,
      element: <VolumesPage />,
    },
  ],
  tabs: [{ value: 'volumes', label: 'Volumes', icon: IconDatabase, Component: VolumeMountsTab }],
  events: volumeEvents,
};
