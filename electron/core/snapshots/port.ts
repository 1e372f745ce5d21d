import type { SnapshotService } from './service';

export type { SnapshotRow } from './store';

/** What base authoring asks of snapshots (a base made from one; a base's descendants). */
export type SnapshotsPort = Pick<SnapshotService, 'ready' | 'childrenOf'>;
