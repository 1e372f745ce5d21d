import type { Storage } from './storage';

export type { StorageReport } from './storage';
export type { ItemRow } from './records';

/**
 * What other modules may ask of the copy-on-write store: the report today; boxes (a workspace
 * item per box, `box:<id>`), snapshots (a snapshot of that item) and volumes (an item each)
 * once they are wired to it.
 */
export type StoragePort = Pick<
  Storage,
  | 'report'
  | 'enforcesQuota'
  | 'get'
  | 'list'
  | 'create'
  | 'snapshot'
  | 'clone'
  | 'restore'
  | 'delete'
  | 'usage'
  | 'setQuota'
  | 'mountFor'
  | 'setOwner'
>;
