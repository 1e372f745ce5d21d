import { EngineError, type ContainerEngine, type VolumeInfo } from '../engine/container-engine';
import { StorageError } from './storage-driver';

/** Engine volumes of the store's items carry these; never a box's or a data volume's role. */
export const STORE_VOLUME_ROLE = 'store';
export const STORE_ID_LABEL = 'boxdesk.store-id';

/** Scratch volumes of a probe or a measurement, removed at once (and at start, after a crash). */
export const PROBE_VOLUME_LABELS = (instanceId: string): Record<string, string> => ({
  'boxdesk.instance': instanceId,
  'boxdesk.role': 'store-probe',
});

export function itemVolumeName(instanceId: string, id: string): string {
  return `boxdesk-store-${instanceId}-${id}`;
}

/**
 * The store's labels, after the owner's (`owner`: a data volume's id, name and role, so its engine
 * volume is found as the volume's): the instance and the item id always say it is the store's.
 */
export function itemVolumeLabels(
  instanceId: string,
  id: string,
  owner: Record<string, string> = {},
): Record<string, string> {
  return { 'boxdesk.role': STORE_VOLUME_ROLE, ...owner, 'boxdesk.instance': instanceId, [STORE_ID_LABEL]: id };
}

/** The store's engine volumes, by item id (known by their item id label: an owner may have set the role). */
export async function listItemVolumes(engine: ContainerEngine, instanceId: string): Promise<Map<string, VolumeInfo>> {
  const out = new Map<string, VolumeInfo>();
  for (const v of await engine.listVolumes({ 'boxdesk.instance': instanceId }))
    if (v.labels[STORE_ID_LABEL]) out.set(v.labels[STORE_ID_LABEL]!, v);
  return out;
}

/** Removes an item's engine volume; one a container still names is a `busy` error, nothing removed. */
export async function removeItemVolume(engine: ContainerEngine, name: string): Promise<void> {
  try {
    await engine.removeVolume(name);
  } catch (err) {
    if (err instanceof EngineError && err.kind === 'conflict')
      throw new StorageError('busy', `a container still uses the engine volume ${name}: remove it first`);
    throw err;
  }
}

const sameOptions = (a: Record<string, string> = {}, b: Record<string, string>) =>
  Object.keys(a).length === Object.keys(b).length && Object.entries(b).every(([k, v]) => a[k] === v);

/**
 * The engine volume that shows an item through the local driver's own mount (`type`,
 * `device`, `o`): the engine mounts it when a container starts, on its own host, so nothing
 * depends on mount propagation. One made with other options (the loop device changed after a
 * reboot) is made again, unless a container still names it.
 */
export async function ensureViewVolume(
  engine: ContainerEngine,
  instanceId: string,
  id: string,
  driverOptions: Record<string, string>,
  labels: Record<string, string> = {},
): Promise<string> {
  const name = itemVolumeName(instanceId, id);
  const existing = await engine.inspectVolume(name);
  if (existing && sameOptions(existing.driverOptions, driverOptions)) return name;
  if (existing) await removeItemVolume(engine, name);
  await engine.createVolume(name, itemVolumeLabels(instanceId, id, labels), { driverOptions });
  return name;
}
