import { queryKeys } from '../api/query-keys';
import type { FeatureModule } from './feature-module';

/**
 * The shell's own queries: the engine's state changes what /healthz, /version and /v1/system say;
 * the default base's pull ending changes whether /v1/system calls it available.
 */
export const shell: FeatureModule = {
  name: 'shell',
  events: {
    'engine.status': (qc) => {
      void qc.invalidateQueries({ queryKey: queryKeys.health });
      void qc.invalidateQueries({ queryKey: queryKeys.version });
      void qc.invalidateQueries({ queryKey: queryKeys.system });
      void qc.invalidateQueries({ queryKey: queryKeys.regions });
    },
    'box.created': (qc) => void qc.invalidateQueries({ queryKey: queryKeys.regions }),
    'box.deleted': (qc) => void qc.invalidateQueries({ queryKey: queryKeys.regions }),
    'base.pull': (qc, e) => {
      if (e.data.done) void qc.invalidateQueries({ queryKey: queryKeys.system });
    },
  },
};
