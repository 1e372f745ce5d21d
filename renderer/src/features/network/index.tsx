import { IconNetwork } from '@tabler/icons-react';
import { lazy } from 'react';
import type { FeatureModule } from '../../app/feature-module';
import { egressKeys } from './use-egress';

const NetworkTab = lazy(() => import('./network-tab').then((m) => ({ default: m.NetworkTab })));

/** A box's Network tab: its policy in words, an edit, and its recent connections kept live by the events. */
export const network: FeatureModule = {
  name: 'network',
  tabs: [{ value: 'network', label: 'Network', icon: IconNetwork, Component: NetworkTab }],
  events: {
    'box.egress': (qc, e) => void qc.invalidateQueries({ queryKey: egressKeys.box(e.project ?? '', e.data.box) }),
    'box.egress.denied': (qc, e) =>
      void qc.invalidateQueries({ queryKey: egressKeys.box(e.project ?? '', e.data.box) }),
  },
};
