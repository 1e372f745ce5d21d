import { ApiError } from '../../../../shared/errors';
import type { Box } from '../../../../shared/schemas/box';
import type { ContainerEngine, ContainerSpec } from '../../engine/container-engine';
import type { EventBus } from '../../events/event-bus';
import { configOf, limitsOf, toBox, type BoxRow } from '../box-row';
import type { StatusWriter } from '../box-status';
import type { BoxStore } from '../store';
import type { BoxWorkspaces } from '../workspaces';
import { limitsDiffer, type PoolClaims, type PoolMember } from './pool-fit';

export interface ClaimDeps {
  pool: PoolClaims;
  store: BoxStore;
  engine: ContainerEngine;
  workspaces: BoxWorkspaces;
  bus: EventBus;
  status: StatusWriter;
  withLock<T>(boxId: string, work: () => Promise<T>): Promise<T>;
  containerSpec(row: BoxRow): ContainerSpec;
  /** Puts the running container on the box's project network with the box's packet filter (networks/). */
  join(row: BoxRow, containerId: string): Promise<void>;
}

export interface ClaimFacts {
  project: string;
  name: string;
  baseName: string;
  /** The workspace quota the box's storage_gb asks for. */
  storageGb: number;
  /** The box's row as a cold create would write it, with the member's id, image and workspace. */
  rowFor(member: PoolMember, quota: number | null | undefined): BoxRow;
}

/**
 * A create that fits (pool-fit.ts) takes a warm-pool container: thawed, given the box's limits,
 * workspace quota and name, and only then recorded, in one insert, as the box (the same events and
 * answer as a cold create). A crash before the insert leaves a pool container that is not paused,
 * which the next engine-up removes; after it, the box is whole. null: no container of the base was
 * ready, or the one taken could not be used (it goes): the create takes the cold path.
 */
export async function claimFromPool(deps: ClaimDeps, f: ClaimFacts): Promise<Box | null> {
  const { pool, workspaces, store } = deps;
  const quota = (await workspaces.available()) ? workspaces.quotaFor(f.storageGb) : undefined;
  const member = pool.take(f.baseName, quota !== undefined);
  if (!member) return null;
  const row = f.rowFor(member, quota);
  return deps.withLock(member.id, async () => {
    try {
      await fit(deps, member, row, quota ?? null);
    } catch {
      await pool.discard(member);
      return null;
    }
    const recorded = { ...row, container_id: member.containerId };
    // The unique (project, name) constraint decides races, as for a cold create.
    if (!store.insert(recorded)) {
      await pool.discard(member);
      throw new ApiError('already_exists', `box "${f.name}" already exists in project "${f.project}"`);
    }
    pool.claimed(member);
    deps.bus.emit('box.created', { box: toBox(recorded) }, f.project);
    return toBox(deps.status.set(recorded, 'running'));
  });
}

/** The engine's side of a claim: thaw (and check it runs), limits, quota, name, network and rules. */
async function fit(deps: ClaimDeps, member: PoolMember, row: BoxRow, quota: number | null): Promise<void> {
  const { engine } = deps;
  await engine.unpauseContainer(member.containerId);
  // One the engine stopped meanwhile (its restart, a docker stop) is no ready container: the create goes cold.
  const state = await engine.inspectContainer(member.containerId);
  if (state?.state !== 'running') throw new Error(`the pool container is ${state?.state ?? 'gone'}`);
  const limits = limitsOf(configOf(row));
  if (limitsDiffer(limits, member.limits)) await engine.updateContainer(member.containerId, limits);
  if (member.workspace && quota !== member.quota) await deps.workspaces.setQuota(member.workspace.item, quota);
  await engine.renameContainer(member.containerId, deps.containerSpec(row).name);
  await deps.join(row, member.containerId);
}
