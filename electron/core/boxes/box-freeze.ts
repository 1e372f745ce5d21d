import type { FastifyBaseLogger } from 'fastify';
import type { ContainerEngine } from '../engine/container-engine';
import type { KeyedMutex } from '../keyed-mutex';
import type { BoxRow } from './box-row';
import type { BoxStore } from './store';

/**
 * Runs `work` (a snapshot or fork of the box: its workspace and its root) with the box's container
 * paused, so both are one instant. The pause is recorded first (`boxes.frozen`) and cleared once
 * thawed, so a crash, or an engine gone meanwhile, thaws the box at the next engine-up
 * (thawFrozen). A stopped box, or one without a workspace item, is not paused (a commit pauses the
 * container itself). The caller holds the box's lock.
 */
export async function freeze<T>(
  store: BoxStore,
  engine: ContainerEngine,
  row: BoxRow,
  work: () => Promise<T>,
): Promise<T> {
  const id = row.container_id;
  if (row.status !== 'running' || !id || !row.workspace_item) return work();
  store.update(row.id, { frozen: id });
  try {
    await engine.pauseContainer(id);
    return await work();
  } finally {
    // An engine that cannot answer now leaves the record: the box is thawed when it is back (thawFrozen).
    if (
      await engine.unpauseContainer(id).then(
        () => true,
        () => false,
      )
    )
      store.update(row.id, { frozen: null });
  }
}

/** At each engine-up, before the reconciler: boxes a snapshot or fork froze when the core died are thawed. */
export async function thawFrozen(
  store: BoxStore,
  engine: ContainerEngine,
  mutex: KeyedMutex,
  log: FastifyBaseLogger,
): Promise<void> {
  for (const first of store.all()) {
    if (!first.frozen) continue;
    // Under the box's lock: a freeze running in this process finishes (and clears it) first.
    await mutex.run(first.id, async () => {
      const row = store.getById(first.id);
      if (!row?.frozen) return;
      await engine.unpauseContainer(row.frozen).catch(() => undefined);
      store.update(row.id, { frozen: null });
      log.warn({ box: row.name, project: row.project }, 'thawed a box a snapshot or fork cut short had paused');
    });
  }
}

/**
 * Runs the workspace's step and the root's side by side (the box frozen for both: the store's call
 * and the engine's commit take turns with nothing), waits for both, and answers both; when either
 * failed, `undo` gets what the other made, and the first failure is thrown.
 */
export async function together<W, R>(
  workspace: () => Promise<W>,
  root: () => Promise<R>,
  undo: (made: { workspace?: W; root?: R }) => Promise<void>,
): Promise<[W, R]> {
  const [w, r] = await Promise.allSettled([workspace(), root()]);
  if (w.status === 'fulfilled' && r.status === 'fulfilled') return [w.value, r.value];
  await undo({
    ...(w.status === 'fulfilled' ? { workspace: w.value } : {}),
    ...(r.status === 'fulfilled' ? { root: r.value } : {}),
  }).catch(() => undefined);
  throw w.status === 'rejected' ? w.reason : (r as PromiseRejectedResult).reason;
}
