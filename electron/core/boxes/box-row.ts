import {
  DEFAULT_CONFIG,
  type Box,
  type BoxStatus,
  type DataMount,
  type ResolvedConfig,
} from '../../../shared/schemas/box';
import { DEFAULT_NETWORK, type ResolvedNetwork } from '../../../shared/schemas/network';
import type { ResourceLimits } from '../engine/container-engine';
import { nextChange, parseLifecycle, type ClockFacts } from './lifecycle/clock-rules';

/**
 * What the clocks read of a row as stored: its last use as written (at most a second behind the
 * live one, lifecycle/usage.ts), unless `live` says better.
 */
export function clockFacts(row: BoxRow, live: { lastUsedMs?: number; inUse?: boolean } = {}): ClockFacts {
  return {
    status: row.status,
    lifecycle: row.lifecycle,
    lastUsedMs: live.lastUsedMs ?? Date.parse(row.last_used_at ?? row.created_at),
    statusSinceMs: Date.parse(row.status_since ?? row.updated_at),
    inUse: live.inUse ?? false,
  };
}

export interface BoxRow {
  id: string;
  project: string;
  name: string;
  status: BoxStatus;
  status_reason: string | null;
  base: string | null;
  image: string;
  /** 1 when the image was committed for this box (a fork) and is removed with it. */
  owns_image: number;
  /** The snapshot this box's root descends from (restored or forked from it), if any. */
  origin: string | null;
  /** JSON of a root replacement in flight (boxes/recreate.ts), finished at start after a crash. */
  pending_root: string | null;
  config: string;
  storage_enforced: number;
  data_mounts: string | null;
  environment: string;
  /** JSON of its network settings (ResolvedNetwork); null: the defaults. */
  network: string | null;
  /** JSON array of the names of the secrets it holds placeholders of (null: none). */
  secrets: string | null;
  tags: string;
  port: number | null;
  grace_seconds: number | null;
  container_id: string | null;
  /** Publishing (publishing/): the preview URL, "public" | "token" while published, a JSON array of extra hostnames. */
  url: string | null;
  url_auth: 'public' | 'token' | null;
  published_domains: string | null;
  /** A JSON array of published ports besides `port`, each at its own host (null: none). */
  published_ports: string | null;
  /** JSON of the main process a service gave the box (services/); null: MAIN_COMMAND. Not part of the public Box. */
  command: string | null;
  /** Its /workspace: a store item and the engine volume showing it; null for a box made before the store. */
  workspace_item: string | null;
  workspace_volume: string | null;
  /** The item's quota in bytes where the store enforces quotas (config.storage_gb). */
  workspace_quota: number | null;
  /** /workspace as last measured (a snapshot or fork of the box). */
  size_bytes: number | null;
  exclusive_bytes: number | null;
  /** The container a snapshot or fork paused for its instant (thawed at start if the core died meanwhile). */
  frozen: string | null;
  /** JSON of its lifecycle clocks (null: none); the last use that counts for idleness; when it took its status. */
  lifecycle: string | null;
  last_used_at: string | null;
  status_since: string | null;
  created_at: string;
  updated_at: string;
}

/** The box's config; fields added since the row was written take their defaults. */
export function configOf(row: Pick<BoxRow, 'config'>): ResolvedConfig {
  return { ...DEFAULT_CONFIG, ...(JSON.parse(row.config) as Partial<ResolvedConfig>) };
}

/** The box's network settings; fields added since the row was written take their defaults. */
export function networkOf(row: Pick<BoxRow, 'network'>): ResolvedNetwork {
  return { ...DEFAULT_NETWORK, ...(row.network ? (JSON.parse(row.network) as Partial<ResolvedNetwork>) : {}) };
}

/** The names of the secrets the box holds placeholders of. */
export function secretsOf(row: Pick<BoxRow, 'secrets'>): string[] {
  return row.secrets ? (JSON.parse(row.secrets) as string[]) : [];
}

/** The box as its networking sees it: its ids, network settings and secrets. */
export function networkedOf(row: BoxRow): {
  id: string;
  project: string;
  name: string;
  network: ResolvedNetwork;
  secrets: string[];
} {
  return { id: row.id, project: row.project, name: row.name, network: networkOf(row), secrets: secretsOf(row) };
}

/** The limits the engine enforces for a config. */
export function limitsOf(config: ResolvedConfig): ResourceLimits {
  return { cpus: config.cpus, ramMb: config.ram_mb, pidsLimit: config.pids_limit };
}

export function toBox(row: BoxRow): Box {
  return {
    id: row.id,
    name: row.name,
    project: row.project,
    status: row.status,
    status_reason: row.status_reason,
    created_at: row.created_at,
    updated_at: row.updated_at,
    base: row.base,
    origin: row.origin,
    config: configOf(row),
    storage_enforced: row.storage_enforced === 1 || row.workspace_quota !== null,
    size_bytes: row.size_bytes,
    exclusive_bytes: row.exclusive_bytes,
    data_mounts: row.data_mounts ? (JSON.parse(row.data_mounts) as DataMount[]) : null,
    environment: JSON.parse(row.environment) as Record<string, string>,
    network: networkOf(row),
    secrets: secretsOf(row),
    port: row.port,
    published_domains: row.published_domains ? (JSON.parse(row.published_domains) as string[]) : null,
    tags: JSON.parse(row.tags) as Record<string, string>,
    termination_grace_period_seconds: row.grace_seconds,
    url: row.url,
    url_settings: row.url_auth ? { auth: row.url_auth } : null,
    ...portUrls(row),
    lifecycle: parseLifecycle(row.lifecycle),
    next_change: nextChange(clockFacts(row)),
    last_used_at: row.last_used_at ?? row.created_at,
  };
}

/** The URLs of the ports published besides the box's port: the box's URL under `{port}.` (omitted when none). */
function portUrls(row: BoxRow): { port_urls?: { port: number; url: string }[] } {
  if (!row.url || !row.published_ports) return {};
  const ports = JSON.parse(row.published_ports) as number[];
  if (!ports.length) return {};
  return { port_urls: ports.map((port) => ({ port, url: row.url!.replace('://', `://${port}.`) })) };
}

/** A box's /workspace on the store: the item and the engine volume that shows it. */
export interface Workspace {
  item: string;
  volume: string;
}

/**
 * The image a new box's container starts from, whether the box owns it, and the snapshot its root
 * descends from; for a restore, the snapshot's /workspace item its new workspace is cloned from.
 */
export interface NewRoot {
  image: string;
  ownsImage: boolean;
  origin: string | null;
  workspaceFrom?: string | 'empty' | null;
}
