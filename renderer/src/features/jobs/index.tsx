import { IconListCheck } from '@tabler/icons-react';
import { lazy } from 'react';
import type { FeatureModule } from '../../app/feature-module';
import { jobKeys } from './use-jobs';

const JobsTab = lazy(() => import('./jobs-tab').then((m) => ({ default: m.JobsTab })));

export const jobs: FeatureModule = {
  name: 'jobs',
  tabs: [{ value: 'jobs', label: 'Jobs', icon: IconListCheck, Component: JobsTab }],
  events: {
    'job.started': (qc, e) => void qc.invalidateQueries({ queryKey: jobKeys.box(e.data.project, e.data.box) }),
    'job.ended': (qc, e) => void qc.invalidateQueries({ queryKey: jobKeys.box(e.data.project, e.data.box) }),
    'job.deleted': (qc, e) => void qc.invalidateQueries({ queryKey: jobKeys.box(e.data.project, e.data.box) }),
  },
};
