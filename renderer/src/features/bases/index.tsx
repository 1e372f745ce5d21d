import { IconStack2 } from '@tabler/icons-react';
import { queryKeys } from '../../api/query-keys';
import type { FeatureModule } from '../../app/feature-module';
import { BasesPage } from './bases-page';
import { baseKeys } from './use-bases';

export const bases: FeatureModule = {
  name: 'bases',
  pages: [{ label: 'Bases', icon: IconStack2, route: '/bases', href: () => '/bases', element: <BasesPage /> }],
  // The list is small: any change (or the end of a pull or an import) refetches it.
  events: {
    'base.created': (qc) => void qc.invalidateQueries({ queryKey: baseKeys.list }),
    'base.deleted': (qc) => void qc.invalidateQueries({ queryKey: baseKeys.list }),
    // A new warm count: the list shows it, Settings' warm pools too.
    'base.updated': (qc) => {
      void qc.invalidateQueries({ queryKey: baseKeys.list });
      void qc.invalidateQueries({ queryKey: queryKeys.system });
    },
    'base.pull': (qc, e) => {
      if (e.data.done) void qc.invalidateQueries({ queryKey: baseKeys.list });
    },
    'base.import': (qc, e) => {
      if (e.data.done) void qc.invalidateQueries({ queryKey: baseKeys.list });
    },
    'base.build.done': (qc) => void qc.invalidateQueries({ queryKey: baseKeys.list }),
  },
};
