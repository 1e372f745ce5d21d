import type { ContainerSpec, VolumeMount } from '../engine/container-engine';
import { configOf, limitsOf, type BoxRow } from './box-row';
import { WORKSPACE_PATH } from './workspaces';

/** Keeps the box alive; exits at once on SIGTERM so stop is quick. An init (tini) reaps zombies. */
export const MAIN_COMMAND = ['/bin/sh', '-c', "trap 'exit 0' TERM INT; while :; do sleep 2147483647 & wait $!; done"];

import { REGION_LABEL } from '../engine/regions/regions';

export const LABELS = {
  id: 'boxdesk.id',
  project: 'boxdesk.project',
  box: 'boxdesk.box',
  instance: 'boxdesk.instance',
  forkOf: 'boxdesk.fork-of',
  /** A warm-pool container (boxes/pool/): the base it was made for. A box claimed from a pool keeps it. */
  pool: 'boxdesk.pool',
  /** The base's image when the pool container was made (a base given another image drains its pool). */
  poolImage: 'boxdesk.pool-image',
  /** The store item made as its /workspace ('' without one). */
  poolWorkspace: 'boxdesk.pool-workspace',
} as const;

/**
 * The engine's container for a box row: its image, main process, labels, limits and mounts. A box
 * with a store workspace mounts it at /workspace, where its processes start (a service's main process
 * keeps its image's directory); a data volume mounted at /workspace itself takes its place.
 */
export function containerSpecOf(
  row: BoxRow,
  ctx: {
    instanceId: string;
    graceSeconds: number;
    mounts: VolumeMount[];
    network?: { name: string; aliases: string[] };
  },
): ContainerSpec {
  const config = configOf(row);
  const workspace =
    row.workspace_volume && !ctx.mounts.some((m) => m.path === WORKSPACE_PATH)
      ? [{ volume: row.workspace_volume, path: WORKSPACE_PATH, readOnly: false }]
      : [];
  return {
    name: `boxdesk-${row.project}-${row.name}-${row.id.slice(4, 12)}`,
    image: row.image,
    command: row.command ? (JSON.parse(row.command) as string[]) : MAIN_COMMAND,
    hostname: row.name,
    // The box environment is applied to each exec and console as it starts, never baked into the
    // container: a baked-in value would outlive an update that removes it. A service's own main
    // process is the exception: it needs its environment, which is fixed for that deployment.
    env: row.command ? (JSON.parse(row.environment) as Record<string, string>) : {},
    labels: {
      [LABELS.id]: row.id,
      [LABELS.project]: row.project,
      [LABELS.box]: row.name,
      [LABELS.instance]: ctx.instanceId,
      [REGION_LABEL]: config.region,
    },
    limits: limitsOf(config),
    storageGb: row.storage_enforced ? config.storage_gb : null,
    graceSeconds: ctx.graceSeconds,
    mounts: [...workspace, ...ctx.mounts],
    ...(row.workspace_volume && !row.command ? { workingDir: WORKSPACE_PATH } : {}),
    ...(ctx.network ? { network: ctx.network } : {}),
  };
}
