import type { BoxCreate, DataMount, ResolvedConfig } from '../../../shared/schemas/box';
import type { ContainerSpec, VolumeMount } from '../engine/container-engine';
import { newId, now } from '../ids';
import type { ForkSource, NewRoot } from './fork-source';
import { configOf, limitsOf, type BoxRow } from './store';

/** Keeps the box alive; exits at once on SIGTERM so stop is quick. An init (tini) reaps zombies. */
export const MAIN_COMMAND = ['/bin/sh', '-c', "trap 'exit 0' TERM INT; while :; do sleep 2147483647 & wait $!; done"];

export const LABELS = {
  id: 'boxdesk.id',
  project: 'boxdesk.project',
  box: 'boxdesk.box',
  instance: 'boxdesk.instance',
  forkOf: 'boxdesk.fork-of',
} as const;

/** What only the core may ask of a new box (never part of the public BoxCreate). */
export interface InternalCreate {
  /** The box's main process instead of MAIN_COMMAND, with the box's environment given to it (a service's deployment). */
  command?: string[];
}

export interface NewBoxFacts {
  project: string;
  input: BoxCreate;
  baseName: string | null;
  root: NewRoot;
  config: ResolvedConfig;
  dataMounts: DataMount[] | null;
  internal: InternalCreate;
  /** The fork source, whose environment a fork inherits unless the body gives one. */
  source: Pick<ForkSource, 'environment'> | null;
  storageEnforced: boolean;
}

/** The row of a box about to be created: status `creating`, no container yet. */
export function newBoxRow(f: NewBoxFacts): BoxRow {
  const at = now();
  return {
    id: newId('box'),
    project: f.project,
    name: f.input.name,
    status: 'creating',
    status_reason: null,
    base: f.baseName,
    image: f.root.image,
    owns_image: f.root.ownsImage ? 1 : 0,
    origin: f.root.origin,
    pending_root: null,
    config: JSON.stringify(f.config),
    storage_enforced: f.storageEnforced ? 1 : 0,
    data_mounts: f.dataMounts?.length ? JSON.stringify(f.dataMounts) : null,
    environment: f.input.environment ? JSON.stringify(f.input.environment) : (f.source?.environment ?? '{}'),
    tags: JSON.stringify(f.input.tags ?? {}),
    port: null,
    grace_seconds: null,
    container_id: null,
    url: null,
    url_auth: null,
    published_domains: null,
    command: f.internal.command ? JSON.stringify(f.internal.command) : null,
    created_at: at,
    updated_at: at,
  };
}

/** The engine's container for a box row: its image, main process, labels, limits and mounts. */
export function containerSpecOf(
  row: BoxRow,
  ctx: { instanceId: string; graceSeconds: number; mounts: VolumeMount[] },
): ContainerSpec {
  const config = configOf(row);
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
    },
    limits: limitsOf(config),
    storageGb: row.storage_enforced ? config.storage_gb : null,
    graceSeconds: ctx.graceSeconds,
    mounts: ctx.mounts,
  };
}
