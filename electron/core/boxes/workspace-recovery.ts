import type { FastifyBaseLogger } from 'fastify';
import { workspacesInIntent } from './recreate';
import type { BoxStore } from './store';
import type { BoxWorkspaces } from './workspaces';

/**
 * The boxes' records against the store's items, at each engine-up once the store has reconciled
 * its own and root replacements are settled: an item owned by a box that no box (nor a replacement
 * in flight) names goes (a crash after the store made it, before the box's record named it, or
 * after a swap, before the old workspace went), and every box's workspace engine volume is made
 * again where its view changed (the loop device after a reboot), before the reconciler starts
 * containers. Boxes being made in this process are left alone.
 */
export async function settleWorkspaces(
  store: BoxStore,
  workspaces: BoxWorkspaces,
  log: FastifyBaseLogger,
): Promise<void> {
  if (!(await workspaces.available())) return;
  const rows = store.all();
  const named = new Set(rows.flatMap((row) => [row.workspace_item, ...workspacesInIntent(row)]));
  for (const item of workspaces.owned('box:')) {
    if (named.has(item.id) || workspaces.inFlight.has(item.record)) continue;
    log.warn({ item: item.id, box: item.record }, 'removing a store item of a box that no record names');
    await workspaces.remove(item.id).catch((err: unknown) => {
      log.warn({ err, item: item.id }, 'could not remove a store item no box names');
    });
  }
  for (const row of rows) {
    if (!row.workspace_item) continue;
    if (!workspaces.exists(row.workspace_item)) {
      log.error(
        { box: row.name, project: row.project, item: row.workspace_item },
        'the /workspace of a box is missing from the store',
      );
      continue;
    }
    await workspaces.mountName(row.workspace_item).catch((err: unknown) => {
      log.error({ err, box: row.name, item: row.workspace_item }, 'the /workspace of a box is not usable');
    });
  }
}
