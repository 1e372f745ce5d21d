import type { EventRules } from '../../api/event-rules';
import { patchBackup, patchVolume, volumeKeys } from './use-volumes';

/** volume.* events patch the project's list and a volume's backups in place; snapshots are refetched. */
export const volumeEvents: EventRules = {
  'volume.created': (qc, e) => patchVolume(qc, e.data.volume),
  'volume.updated': (qc, e) => {
    patchVolume(qc, e.data.volume);
    // A snapshot taken or a restore done is told as an update of its volume.
    void qc.invalidateQueries({ queryKey: volumeKeys.snapshots(e.data.volume.project, e.data.volume.name) });
  },
  'volume.deleted': (qc, e) => patchVolume(qc, e.data.volume, true),
  'volume.backup': (qc, e) => {
    if (!e.project) return;
    patchBackup(qc, e.project, e.data.backup);
    // A finished backup may have pushed the oldest past the retention.
    if (e.data.backup.status !== 'pending')
      void qc.invalidateQueries({ queryKey: volumeKeys.backups(e.project, e.data.volume) });
  },
  'volume.backup.deleted': (qc, e) => {
    if (e.project) patchBackup(qc, e.project, e.data.backup, true);
  },
};
