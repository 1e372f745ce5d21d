import { Storage } from './storage';

export type { StorageReport } from './storage';
export type { ItemRow } from './records';
export type { StorageCapabilities } from './storage-driver';
/** Ids an owner chooses before the call (so its own record names the item first), and the label that marks an item's engine volume. */
export { newItemId } from './storage';
export { STORE_ID_LABEL } from './engine-volumes';

/**
 * What other modules may ask of the copy-on-write store: the report; data volumes (an item each,
 * `volume:<id>`, their snapshots `volume-snapshot:<id>`); boxes (a workspace item per box,
 * `box:<id>`) and box snapshots (a snapshot of that item) once they are wired to it.
 */
export type StoragePort = Pick<
  Storage,
  | 'report'
  | 'measuredReport'
  | 'available'
  | 'driverName'
  | 'capabilities'
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

/** A store call whose failure is answered as a problem (a busy item is a 409, a store away a 503). */
export async function storeCall<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw storageProblem(err);
  }
}

/** What an item holds: all it refers to, and what only it holds (null where the driver cannot tell). */
export interface ItemSizes {
  size_bytes: number;
  exclusive_bytes: number | null;
}

export const GiB = 1024 ** 3;
