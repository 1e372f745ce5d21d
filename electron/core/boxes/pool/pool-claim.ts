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
  /** Puts the container on the box's project network with the box's packet filter (networks/); `frozen`: it is still paused. */
  join(row: BoxRow, containerId: string, frozen: boolean): Promise<void>;
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

/**
 * The engine's side of a claim: limits, quota, name, network and rules, and the thaw. Where the
 * engine moves a paused container (Docker) all of it is done while the container is still frozen,
 * at once, and it thaws last: none of its processes runs before its rules and network are the
 * box's. Elsewhere it thaws first and the rest follows in turn, as the engine needs.
 */
async function fit(deps: ClaimDeps, member: PoolMember, row: BoxRow, quota: number | null): Promise<void> {
  const { engine } = deps;
  const id = member.containerId;
  const limits = limitsOf(configOf(row));
  const settle = async () => {
    if (limitsDiffer(limits, member.limits)) await engine.updateContainer(id, limits);
    if (member.workspace && quota !== member.quota) await deps.workspaces.setQuota(member.workspace.item, quota);
    await engine.renameContainer(id, deps.containerSpec(row).name);
  };
  if (engine.movesFrozenContainers) {
    await Promise.all([settle(), deps.join(row, id, true)]);
    await thaw(engine, id);
    return;
  }
  await thaw(engine, id);
  await settle();
  await deps.join(row, id, false);
}

/** Unpauses the container; one the engine stopped meanwhile (its restart, a docker stop) is no ready container: the create goes cold. */
async function thaw(engine: ContainerEngine, id: string): Promise<void> {
  await engine.unpauseContainer(id);
  const state = await engine.inspectContainer(id);
  if (state?.state !== 'running') throw new Error(`the pool container is ${state?.state ?? 'gone'}`);
}
