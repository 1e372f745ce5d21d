import { DEFAULT_CONFIG, type BoxCreate, type ResolvedConfig } from '../../../../shared/schemas/box';
import type { ResourceLimits } from '../../engine/container-engine';
import type { Workspace } from '../box-row';

/** What a create needs to know of the warm pool (boxes/pool/warm-pool.ts), so box-create.ts needs no more. */
export interface PoolMember {
  /** The box id it becomes (its container's `boxdesk.id`). */
  id: string;
  base: string;
  /** The base's image it was made from. */
  image: string;
  containerId: string;
  /** Its /workspace on the store (null where the store did not work), with the quota it was made with. */
  workspace: Workspace | null;
  quota: number | null;
  limits: ResourceLimits;
}

/** The config every pool container is made with: a cold create's default. */
export const POOL_CONFIG: ResolvedConfig = DEFAULT_CONFIG;

/** The hostname of a pool container: set when it is made, before the box's name is known (docs/api.md "Warm pool"). */
export function poolHostname(boxId: string): string {
  return `box-${boxId.slice(4, 12)}`;
}

/**
 * Why a create cannot take a warm-pool container (null: it can). What a running container can be
 * given live fits: its name (a rename), cpus, ram_mb and pids_limit (an update), storage_gb on the
 * workspace's quota, and everything the core keeps itself (environment, which every box gets at each
 * exec and console, never in its container; tags; lifecycle). What is fixed when a container is made
 * does not: a fork's root, data volumes (mounts), a main process of its own (a service's deployment,
 * with its environment), and storage_gb where the engine enforces it on the root filesystem.
 */
export function poolMisfit(
  input: Pick<BoxCreate, 'fork' | 'data_mounts'>,
  options: { command: boolean; config: ResolvedConfig; rootSizeEnforced: boolean },
): string | null {
  if (input.fork !== undefined) return 'a fork starts from its source, not from the base';
  if (input.data_mounts?.length) return 'data volumes are mounted when the container is made';
  if (options.command) return 'a main process of its own is fixed when the container is made';
  if (options.rootSizeEnforced && options.config.storage_gb !== POOL_CONFIG.storage_gb)
    return 'the engine fixes the root filesystem size when the container is made';
  return null;
}

/** Whether a claimed container needs an update for the box's limits. */
export function limitsDiffer(a: ResourceLimits, b: ResourceLimits): boolean {
  return a.cpus !== b.cpus || a.ramMb !== b.ramMb || a.pidsLimit !== b.pidsLimit;
}

/** What a create asks of the warm pool (boxes/pool/warm-pool.ts implements it). */
export interface PoolClaims {
  /** A ready container of the base for a create, out of the pool; undefined: none fits. */
  take(base: string, withWorkspace: boolean): PoolMember | undefined;
  /** The box is recorded: it owns the container and workspace now. */
  claimed(member: PoolMember): void;
  /** A taken container the create could not use goes. */
  discard(member: PoolMember): Promise<void>;
}
