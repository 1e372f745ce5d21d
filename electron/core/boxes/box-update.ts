import { ApiError } from '../../../shared/errors';
import type { BoxUpdate, ResolvedConfig } from '../../../shared/schemas/box';
import type { ContainerEngine } from '../engine/container-engine';
import { now } from '../ids';
import type { ResolvedNetwork } from '../../../shared/schemas/network';
import type { BoxNetworking } from '../networks/box-networking';
import { configOf, limitsOf, networkedOf, type BoxRow } from './box-row';
import { mergeLifecycle, parseLifecycle } from './lifecycle/clock-rules';
import type { BoxStore } from './store';
import type { BoxWorkspaces } from './workspaces';

export interface BoxUpdateDeps {
  store: BoxStore;
  networking: Pick<BoxNetworking, 'enforce'>;
  engine: ContainerEngine;
  workspaces: BoxWorkspaces;
  /** Throws the engine-down problem when the engine is unreachable. */
  requireEngine(): void;
}

/**
 * Applies a box update whose config is resolved: the new limits to its container now, the
 * workspace's quota to follow storage_gb, then the record. A storage_gb the engine enforces on
 * the root is fixed at create.
 */
export async function applyBoxUpdate(
  deps: BoxUpdateDeps,
  row: BoxRow,
  input: BoxUpdate,
  config: ResolvedConfig,
): Promise<BoxRow> {
  const current = configOf(row);
  const lifecycle =
    input.lifecycle !== undefined
      ? mergeLifecycle(parseLifecycle(row.lifecycle), input.lifecycle, Date.now())
      : undefined;
  if (row.storage_enforced && config.storage_gb !== current.storage_gb) {
    throw new ApiError(
      'conflict',
      'config.storage_gb is enforced by the engine and can only be set when the box is created',
      {
        errors: [{ path: 'body.config.storage_gb', message: 'cannot change after create' }],
      },
    );
  }
  // The workspace's quota follows storage_gb (a box already past a lower one can only delete).
  const quota =
    row.workspace_item && row.workspace_quota !== null && config.storage_gb !== current.storage_gb
      ? deps.workspaces.quotaFor(config.storage_gb)
      : undefined;
  if (quota !== undefined) {
    deps.requireEngine();
    await deps.workspaces.setQuota(row.workspace_item!, quota);
  }
  const limitsChanged =
    config.cpus !== current.cpus || config.ram_mb !== current.ram_mb || config.pids_limit !== current.pids_limit;
  // A box in error may have lost its container: its new limits are recorded and applied when it is resumed.
  if (limitsChanged && row.container_id && row.status !== 'error') {
    deps.requireEngine();
    await deps.engine.updateContainer(row.container_id, limitsOf(config));
  }
  return deps.store.update(
    row.id,
    {
      config: JSON.stringify(config),
      ...(input.environment !== undefined ? { environment: JSON.stringify(input.environment) } : {}),
      ...(input.tags !== undefined ? { tags: JSON.stringify(input.tags) } : {}),
      ...(input.port !== undefined ? { port: input.port } : {}),
      ...(quota !== undefined ? { workspace_quota: quota } : {}),
      ...(lifecycle !== undefined ? { lifecycle: lifecycle && JSON.stringify(lifecycle) } : {}),
      ...(input.termination_grace_period_seconds !== undefined
        ? { grace_seconds: input.termination_grace_period_seconds }
        : {}),
    },
    now(),
  );
}

/**
 * Records the box's new network settings or secrets; a running box's rules change at once (none
 * recorded if they cannot). Its commands from now on see the new secrets' placeholders.
 */
export async function applyNetworkChange(
  deps: BoxUpdateDeps,
  row: BoxRow,
  network?: ResolvedNetwork,
  secrets?: string[],
): Promise<BoxRow> {
  const patch = {
    ...(network ? { network: JSON.stringify(network) } : {}),
    ...(secrets ? { secrets: secrets.length ? JSON.stringify(secrets) : null } : {}),
  };
  const next = deps.store.update(row.id, patch, now());
  if (row.status !== 'running' || !row.container_id) return next;
  deps.requireEngine();
  try {
    await deps.networking.enforce(networkedOf(next), row.container_id);
  } catch (err) {
    deps.store.update(row.id, { network: row.network, secrets: row.secrets }, now());
    throw err;
  }
  return next;
}
