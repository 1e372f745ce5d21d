import { ApiError } from '../../../shared/errors';
import type { EngineError } from '../engine/container-engine';
import type { BoxDeps } from './box-create';
import { toBox, type BoxRow } from './box-row';
import { LABELS } from './container-spec';

/** What a box's removal clears besides its own resources: the service's memory of the box. */
export interface RemovalMemory {
  forgetBox(boxId: string, containerId: string | null): void;
}

/**
 * The end of a delete, once the box is `deleting` (the service's queue, the reconciler's finish of
 * a delete the core did not see through): its container and any other of its label, the image a
 * fork owns, its workspace item, its record, and its project's network when it was the last box.
 */
export async function removeBox(
  deps: Pick<BoxDeps, 'engine' | 'store' | 'instanceId' | 'workspaces' | 'bus' | 'networking'> & {
    log: { warn(obj: object, msg: string): void };
  },
  memory: RemovalMemory,
  row: BoxRow,
): Promise<void> {
  const { engine, store } = deps;
  if (row.container_id) await engine.removeContainer(row.container_id);
  const leftovers = await engine.listContainers({ [LABELS.id]: row.id, [LABELS.instance]: deps.instanceId });
  for (const c of leftovers) await engine.removeContainer(c.id);
  // A fork's committed image goes with it (the engine keeps it while other forks build on it).
  if (row.owns_image) await engine.removeImage(row.image);
  // Its /workspace goes once no container names it (snapshots of it are items of their own). A store that
  // cannot answer now does not keep the box: its item, named by no box, goes at the next engine-up.
  await deps.workspaces.remove(row.workspace_item).catch((err: unknown) => {
    deps.log.warn({ err, box: row.name, item: row.workspace_item }, 'the workspace of a deleted box goes later');
  });
  memory.forgetBox(row.id, row.container_id);
  store.delete(row.id);
  deps.bus.emit('box.deleted', { box: toBox(row) }, row.project);
  deps.networking.forget(row.id);
  if (!store.list(row.project, { tags: [], limit: 1 }).length) deps.networking.removeNetwork(row.project);
}

/**
 * The engine refused to run something in the box's container (paused, not
 * running): a 409 about the box; the engine's event brings its status up to date.
 */
export function containerRefused(row: BoxRow, err: EngineError): ApiError {
  const paused = /paused/i.test(err.message);
  const hint = paused
    ? 'its container was paused outside Boxdesk: resume the box (POST …/resume) to thaw it'
    : 'its main process is not running: GET the box for its status_reason; resume it to start it again';
  return new ApiError('conflict', `box "${row.name}" cannot run commands now (${err.message}); ${hint}`, { hint });
}

/** The answer to an operation a delete overtook (it killed the container under it). */
export function deletedMeanwhile(row: BoxRow): ApiError {
  return new ApiError('conflict', `box "${row.name}" was deleted while this request was in progress`, {
    hint: 'create it again if you still need it',
  });
}
