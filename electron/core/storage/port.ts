import { Storage } from './storage';

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
  | 'available'
  | 'driverName'
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

/** A store failure as the API's problem (anything else is answered as it is). */
export const storageProblem = (err: unknown): unknown => Storage.toApiError(err);
