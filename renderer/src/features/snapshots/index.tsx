import { IconCamera } from '@tabler/icons-react';
import { lazy } from 'react';
import type { FeatureModule } from '../../app/feature-module';
import { snapshotKeys } from './use-snapshots';

const SnapshotsTab = lazy(() => import('./snapshots-tab').then((m) => ({ default: m.SnapshotsTab })));

export const snapshots: FeatureModule = {
  name: 'snapshots',
  tabs: [{ value: 'snapshots', label: 'Snapshots', icon: IconCamera, Component: SnapshotsTab }],
  events: {
    'snapshot.created': (qc, e) =>
      void qc.invalidateQueries({ queryKey: snapshotKeys.project(e.data.snapshot.project) }),
    'snapshot.deleted': (qc, e) =>
      void qc.invalidateQueries({ queryKey: snapshotKeys.project(e.data.snapshot.project) }),
  },
};
