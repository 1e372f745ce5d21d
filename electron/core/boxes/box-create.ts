import { ApiError } from '../../../shared/errors';
import { DEFAULT_BASE, type BasesPort } from '../bases/port';
import {
  DEFAULT_CONFIG,
  type Box,
  type BoxCreate,
  type DataMount,
  type ResolvedConfig,
} from '../../../shared/schemas/box';
import { DEFAULT_NETWORK, networkProblems, type ResolvedNetwork } from '../../../shared/schemas/network';
import { EngineError, type ContainerEngine, type ContainerSpec } from '../engine/container-engine';
import type { EngineMonitor } from '../engine/engine-monitor';
import type { EventBus } from '../events/event-bus';
import { NetworkRulesError, type BoxNetworking } from '../networks/box-networking';
import { newId, now } from '../ids';
import { resolveConfig } from './box-config';
import type { Regions } from '../engine/regions/regions';
import type { Lifecycle } from '../../../shared/schemas/box-lifecycle';
import { mergeLifecycle, parseLifecycle } from './lifecycle/clock-rules';
import {
  configOf,
  networkedOf,
  networkOf,
  secretsOf,
  toBox,
  type BoxRow,
  type NewRoot,
  type Workspace,
} from './box-row';
import type { StatusWriter } from './box-status';
import { containerSpecOf, LABELS } from './container-spec';
import { checkDataMounts } from './data-mounts';
import type { BoxExtensions } from './extensions';
import { claimFromPool } from './pool/pool-claim';
import { poolMisfit, type PoolClaims } from './pool/pool-fit';
import { forkRoot, resolveForkSource, type ForkBoxes, type ForkSource } from './fork-source';
import type { RootImages } from './root-images';
import type { BoxStore } from './store';
import type { BoxWorkspaces } from './workspaces';

/** Box ids: box_ and 20 base32 characters. */
export const BOX_ID_PREFIX = 'box';

/** What only the core may ask of a new box (never part of the public BoxCreate). */
export interface InternalCreate {
  /** The box's main process instead of MAIN_COMMAND, with the box's environment given to it (a service's deployment). */
  command?: string[];
}

export interface NewBoxFacts {
  id?: string;
  project: string;
  input: BoxCreate;
  baseName: string | null;
  root: NewRoot;
  config: ResolvedConfig;
  dataMounts: DataMount[] | null;
  internal: InternalCreate;
  /** The fork source, whose environment a fork inherits unless the body gives one. */
  source: Pick<ForkSource, 'environment'> | null;
  /** Its network settings, resolved (a fork of a box starts with the box's). */
  network: ResolvedNetwork;
  /** The secrets it holds placeholders of (a fork of a box starts with the box's). */
  secrets: string[];
  storageEnforced: boolean;
  /** Its /workspace on the store (null: none, as for a fork of a box made before the store) and its quota. */
  workspace?: Workspace | null;
  workspaceQuota?: number | null;
  /** Its clocks (lifecycle/clock-rules.ts mergeLifecycle), null: none. */
  lifecycle?: Lifecycle | null;
}

/** The row of a box about to be created: status `creating`, no container yet. */
export function newBoxRow(f: NewBoxFacts): BoxRow {
  const at = now();
  return {
    id: f.id ?? newId(BOX_ID_PREFIX),
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
    network: JSON.stringify(f.network),
    secrets: f.secrets.length ? JSON.stringify(f.secrets) : null,
    tags: JSON.stringify(f.input.tags ?? {}),
    port: null,
    grace_seconds: null,
    container_id: null,
    url: null,
    url_auth: null,
    published_domains: null,
    published_ports: null,
    command: f.internal.command ? JSON.stringify(f.internal.command) : null,
    workspace_item: f.workspace?.item ?? null,
    workspace_volume: f.workspace?.volume ?? null,
    workspace_quota: f.workspace ? (f.workspaceQuota ?? null) : null,
    size_bytes: null,
    exclusive_bytes: null,
    frozen: null,
    lifecycle: f.lifecycle ? JSON.stringify(f.lifecycle) : null,
    last_used_at: at,
    status_since: at,
    created_at: at,
    updated_at: at,
  };
}

/** What the box service is made with, and hands on to the making of boxes. */
export interface BoxDeps {
  store: BoxStore;
  engine: ContainerEngine;
  bases: Pick<BasesPort, 'resolveImage'>;
  bus: EventBus;
  monitor: EngineMonitor;
  instanceId: string;
  roots: RootImages;
  /** What other modules plug in: fork sources (snapshots), data volumes, delete guards. */
  extensions: BoxExtensions;
  /** Boxes' /workspace items on the copy-on-write store. */
  workspaces: BoxWorkspaces;
  /** Projects' networks and boxes' packet filters. */
  networking: BoxNetworking;
  /** Secrets (secrets/): a box naming one that is not there is refused. */
  secrets: { check(names: readonly string[], field: string): void };
  /** The engines, each a region; a box is made in its config.region's. */
  regions: Regions;
}

export interface BoxCreationDeps extends BoxDeps {
  status: StatusWriter;
  /** The box service: lookups, the box's queue, and the grace period its container stops with. */
  boxes: ForkBoxes & { graceOf(row: BoxRow): number };
}

/**
 * The new box's config, in a region that is up: a fork's is its source's (another region is a
 * 409), else the first region's. `home`: in the first region, where the warm pools and the
 * copy-on-write store are (docs/api.md, "Regions").
 */
function regionalConfig(
  input: BoxCreate['config'],
  source: ResolvedConfig | null,
  regions: Regions,
): { config: ResolvedConfig; home: boolean } {
  const defaults = { ...DEFAULT_CONFIG, region: regions.first.name };
  const config = resolveConfig(input, source ?? defaults, regions, source ? 'fork' : 'create');
  regions.requireUp(config.region);
  return { config, home: config.region === regions.first.name };
}

/** A fork starts from its source's base: naming a base too is a 400. */
function refuseForkWithBase(input: BoxCreate): void {
  if (input.fork !== undefined && input.base !== undefined)
    throw new ApiError('invalid_body', 'give either fork or base, not both', {
      errors: [{ path: 'body.fork', message: 'cannot be combined with base' }],
    });
}

/**
 * Making a box: its row (from a base, or a fork of a box or snapshot), then its container,
 * started. Nothing half-made survives a failed create.
 */
export class BoxCreation {
  /** The warm pools (boxes/pool/), once the boxes module has made them. */
  pool: PoolClaims | null = null;

  constructor(private readonly deps: BoxCreationDeps) {}

  async create(project: string, input: BoxCreate, internal: InternalCreate = {}): Promise<Box> {
    const { store, engine, extensions, regions } = this.deps;
    refuseForkWithBase(input);
    // A fork names a box or a snapshot of the project (boxes/fork-source.ts).
    const snapshots = extensions.forkSnapshots;
    const source = input.fork !== undefined ? resolveForkSource(this.deps.boxes, snapshots, project, input.fork) : null;
    const dataMounts = input.data_mounts ? checkDataMounts(input.data_mounts) : null;
    const lifecycle = mergeLifecycle(parseLifecycle(null), input.lifecycle, Date.now());
    const network = resolveNetwork(input.network, source?.kind === 'box' ? networkOf(source.row) : undefined);
    await this.deps.networking.check(network);
    const secrets = input.secrets ?? (source?.kind === 'box' ? secretsOf(source.row) : []);
    this.deps.secrets.check(secrets, 'body.secrets');
    extensions.volumes.require(project, dataMounts);
    this.deps.monitor.requireUp();
    const { config, home } = regionalConfig(input.config, source ? configOf(source) : null, regions);
    const baseName = source ? source.base : (input.base ?? DEFAULT_BASE);
    if (store.get(project, input.name))
      throw new ApiError('already_exists', `box "${input.name}" already exists in project "${project}"`);
    const storageEnforced = Boolean(this.deps.monitor.current.info?.storageLimit);
    const fits = !poolMisfit(input, { command: Boolean(internal.command), config, rootSizeEnforced: storageEnforced });
    if (this.pool && fits && home) {
      const facts = { project, input, baseName: baseName!, config, dataMounts, internal, storageEnforced, lifecycle };
      const claimed = await this.claim({ ...facts, network, secrets });
      if (claimed) return claimed;
    }
    const id = newId(BOX_ID_PREFIX);
    const { workspaces } = this.deps;
    // The workspace's quota for storage_gb where the store enforces one (undefined: no store, no workspace item).
    const quota = home && (await workspaces.available()) ? workspaces.quotaFor(config.storage_gb) : undefined;
    workspaces.inFlight.add(id);
    let row: BoxRow;
    let drop: () => Promise<void>;
    try {
      const { root, workspace } = await this.root(project, source, baseName!, id, quota);
      row = newBoxRow({
        id,
        project,
        input,
        baseName,
        root,
        config,
        dataMounts,
        internal,
        source,
        network,
        secrets,
        storageEnforced,
        workspace,
        workspaceQuota: quota,
        lifecycle,
      });
      drop = async () => {
        if (root.ownsImage) await engine.removeImage(root.image).catch(() => undefined);
        await workspaces.remove(workspace?.item ?? null).catch(() => undefined);
      };
      // Checked again with no await before the insert: a volume deleted meanwhile is a 404, never a mount of nothing.
      try {
        extensions.volumes.require(project, dataMounts, { name: input.name, region: config.region });
      } catch (err) {
        await drop();
        throw err;
      }
      // The unique (project, name) constraint decides races: one insert wins, the others get 409.
      if (!store.insert(row)) {
        await drop();
        throw new ApiError('already_exists', `box "${input.name}" already exists in project "${project}"`);
      }
    } finally {
      workspaces.inFlight.delete(id);
    }
    this.deps.bus.emit('box.created', { box: toBox(row) }, project);
    return this.deps.boxes.withLock(row.id, async () => {
      try {
        return toBox(await this.bringUp(row));
      } catch (err) {
        // Nothing half-made survives a failed create: the container, the row, then its image and workspace
        // (a crash before those leaves them to the start-up collection, never a row without its workspace).
        const current = store.getById(row.id);
        if (current?.container_id) await engine.removeContainer(current.container_id).catch(() => undefined);
        store.delete(row.id);
        await drop();
        this.deps.bus.emit('box.deleted', { box: toBox(current ?? row) }, project);
        throw err;
      }
    });
  }

  /** A warm-pool container of the base as the box (pool/pool-claim.ts); null: the cold path. */
  private claim(f: Omit<NewBoxFacts, 'root' | 'source'> & { baseName: string }): Promise<Box | null> {
    const { store, engine, workspaces, bus } = this.deps;
    const deps = { pool: this.pool!, store, engine, workspaces, bus, status: this.deps.status };
    return claimFromPool(
      {
        ...deps,
        withLock: (id, work) => this.deps.boxes.withLock(id, work),
        containerSpec: (row) => this.containerSpec(row),
        join: (row, containerId, frozen) => this.deps.networking.claim(networkedOf(row), containerId, frozen),
      },
      {
        ...{ project: f.project, name: f.input.name, baseName: f.baseName, storageGb: f.config.storage_gb },
        rowFor: (member, quota) =>
          newBoxRow({
            ...f,
            id: member.id,
            root: { image: member.image, ownsImage: false, origin: null },
            source: null,
            workspace: member.workspace,
            workspaceQuota: quota,
          }),
      },
    );
  }

  /**
   * The new box's root and /workspace. `quota` is undefined when the store does not work (no
   * workspace item); a fork of a box or snapshot made before the store has none either, as its source.
   */
  private async root(
    project: string,
    source: ForkSource | null,
    baseName: string,
    boxId: string,
    quota: number | null | undefined,
  ): Promise<{ root: NewRoot; workspace: Workspace | null }> {
    const { workspaces } = this.deps;
    if (source) {
      const fork = { workspaces, boxId, quota };
      return forkRoot(this.deps.boxes, this.deps.roots, this.deps.extensions.forkSnapshots, project, source, fork);
    }
    const root = { image: await this.deps.bases.resolveImage(baseName), ownsImage: false, origin: null };
    return { root, workspace: quota === undefined ? null : await workspaces.make(boxId, quota) };
  }

  /**
   * Creates (or adopts, after a crash) the box's container and starts it. A
   * main process that cannot start leaves the box in `error` with the
   * engine's reason: the box exists, its container can be inspected, and
   * delete removes it.
   */
  async bringUp(row: BoxRow): Promise<BoxRow> {
    const { engine, store } = this.deps;
    let containerId = row.container_id;
    let made = false;
    if (!containerId) {
      const existing = await engine.listContainers({
        [LABELS.id]: row.id,
        [LABELS.instance]: this.deps.instanceId,
      });
      made = !existing[0];
      containerId =
        existing[0]?.id ??
        (await this.deps.networking.onNetwork(row.project, () => engine.createContainer(this.containerSpec(row))));
      row = store.update(row.id, { container_id: containerId }, now());
    }
    try {
      await this.deps.networking.start(networkedOf(row), containerId, made);
    } catch (err) {
      if (!(err instanceof EngineError) || err.kind === 'unavailable' || err instanceof NetworkRulesError) throw err;
      return this.deps.status.set(
        row,
        'error',
        `main process could not start: ${err.message}; fix the base's image (its /bin/sh must run), then delete this box and create it again`,
      );
    }
    return this.deps.status.set(row, 'running');
  }

  containerSpec(row: BoxRow): ContainerSpec {
    return containerSpecOf(row, {
      instanceId: this.deps.instanceId,
      graceSeconds: this.deps.boxes.graceOf(row),
      mounts: this.deps.extensions.volumes.engineMounts(row),
      network: this.deps.networking.specFor(row),
    });
  }
}

/** Network settings given (or none) over the ones a box starts from; 400 naming each bad allow entry. */
export function resolveNetwork(
  input: BoxCreate['network'],
  current: ResolvedNetwork = { ...DEFAULT_NETWORK },
): ResolvedNetwork {
  const problems = input ? networkProblems(input) : [];
  if (problems.length)
    throw new ApiError(
      'invalid_body',
      `network.allow has entries that are not destinations: ${problems.map((p) => p.message).join('; ')}`,
      {
        errors: problems,
      },
    );
  return { ...current, ...input };
}
