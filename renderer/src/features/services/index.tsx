import { IconRocket } from '@tabler/icons-react';
import type { FeatureModule } from '../../app/feature-module';
import { ServicesPage } from './services-page';
import { removeService, upsertDeployment, upsertService } from './use-services';

export const services: FeatureModule = {
  name: 'services',
  pages: [
    {
      label: 'Services',
      icon: IconRocket,
      route: '/projects/:project/services',
      href: (project) => `/projects/${project}/services`,
      element: <ServicesPage />,
    },
  ],
  // Each event carries the service or deployment as it is now: patched in place, so a deploy's steps show as they happen.
  events: {
    'service.created': (qc, e) => upsertService(qc, e.data.service),
    'service.updated': (qc, e) => upsertService(qc, e.data.service),
    'service.deleted': (qc, e) => removeService(qc, e.data.service),
    'deployment.updated': (qc, e) => upsertDeployment(qc, e.data.deployment),
  },
};
