import { Type, type Static } from '@sinclair/typebox';
import { ClosedObject, DnsLabel, EnvironmentMap, Int32NonNegative, TagMap, Timestamp } from './common';
import { NetworkSettings, ResolvedNetwork } from './network';
import { SecretNames } from './secrets';
import { SnapshotId } from './snapshots';
import { Lifecycle, LifecycleInput, NextChange, type LifecycleAction, type LifecycleReason } from './box-lifecycle';

/** The longest a stop waits between SIGTERM and SIGKILL, whatever the box asks: a stop always ends. */
export const MAX_GRACE_SECONDS = 300;

export const BOX_STATUSES = [
  'creating',
  'running',
  'paused',
  'stopping',
  'stopped',
  'resuming',
  'deleting',
  'error',
] as const;
export const BoxStatus = Type.Union(BOX_STATUSES.map((s) => Type.Literal(s)));
export type BoxStatus = Static<typeof BoxStatus>;

export const Config = ClosedObject({
  cpus: Type.Optional(Type.Integer({ minimum: 1, maximum: 1024, description: 'CPU cores (engine limit). Default 1.' })),
  ram_mb: Type.Optional(
    Type.Integer({ minimum: 64, maximum: 4194304, description: 'Memory limit in MiB. Default 1024.' }),
  ),
  region: Type.Optional(
    Type.String({
      description:
        'The region (engine) to make it in: one of GET /v1/regions, default the first ("local" with one engine). A box stays in its region; a fork is made in its source\'s.',
    }),
  ),
  storage_gb: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 65536, description: 'Root filesystem size limit in GiB. Default 10.' }),
  ),
  pids_limit: Type.Optional(
    Type.Integer({
      minimum: 16,
      maximum: 4194304,
      description: 'Most processes (and threads) the box may run at once (engine limit); applies live. Default 1024.',
    }),
  ),
});
export type Config = Static<typeof Config>;

export const ResolvedConfig = Type.Object({
  cpus: Type.Integer(),
  ram_mb: Type.Integer(),
  region: Type.String(),
  storage_gb: Type.Integer(),
  pids_limit: Type.Integer(),
});
export type ResolvedConfig = Static<typeof ResolvedConfig>;

export const DataMount = ClosedObject({
  name: DnsLabel,
  path: Type.String({ pattern: '^/', maxLength: 4096 }),
  read_only: Type.Optional(Type.Boolean()),
});
export type DataMount = Static<typeof DataMount>;

export const UrlSettings = Type.Object({ auth: Type.Union([Type.Literal('public'), Type.Literal('token')]) });

export const Box = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    project: Type.String(),
    status: BoxStatus,
    status_reason: Type.Union([Type.String(), Type.Null()]),
    created_at: Timestamp,
    updated_at: Timestamp,
    base: Type.Union([Type.String(), Type.Null()]),
    origin: Type.Optional(
      Type.Union([Type.String(), Type.Null()], {
        description: "The snapshot (snap_…) this box's root descends from, when it was forked or restored from one.",
      }),
    ),
    config: ResolvedConfig,
    storage_enforced: Type.Boolean({
      description:
        "Whether config.storage_gb is enforced: a quota on the box's /workspace (btrfs stores), or the engine's limit on its root.",
    }),
    size_bytes: Type.Optional(
      Type.Union([Type.Integer(), Type.Null()], {
        description:
          "Bytes in the box's /workspace, as last measured (at each snapshot and fork of the box); null: not measured yet, or a box made before the copy-on-write store.",
      }),
    ),
    exclusive_bytes: Type.Optional(
      Type.Union([Type.Integer(), Type.Null()], {
        description:
          'Bytes of /workspace deleting the box would free (blocks no snapshot or fork shares), measured with size_bytes; null: not measured, or the store cannot tell.',
      }),
    ),
    data_mounts: Type.Union([Type.Array(DataMount), Type.Null()]),
    environment: Type.Record(Type.String(), Type.String()),
    network: ResolvedNetwork,
    secrets: Type.Array(Type.String(), {
      description:
        'The secrets the box holds placeholders of (names; values never leave the core but into requests to their hosts).',
    }),
    port: Type.Union([Type.Integer(), Type.Null()]),
    published_domains: Type.Union([Type.Array(Type.String()), Type.Null()]),
    tags: Type.Record(Type.String(), Type.String()),
    termination_grace_period_seconds: Type.Union([Type.Integer(), Type.Null()]),
    url: Type.Union([Type.String(), Type.Null()]),
    url_settings: Type.Union([UrlSettings, Type.Null()]),
    port_urls: Type.Optional(
      Type.Array(Type.Object({ port: Type.Integer(), url: Type.String() }), {
        description:
          'Ports published besides `port` (publish `ports`), each at its own URL: http://{port}.{box}--{project}.localhost:{proxy_port}.',
      }),
    ),
    lifecycle: Type.Optional(Lifecycle),
    next_change: Type.Optional(NextChange),
    last_used_at: Type.Optional(
      Type.Union([Timestamp, Type.Null()], {
        description: 'The last use that counts for the idle clocks (an API call on the box or a proxy request to it).',
      }),
    ),
  },
  {},
);
export type Box = Static<typeof Box>;

export const BoxCreate = ClosedObject({
  name: DnsLabel,
  base: Type.Optional(DnsLabel),
  config: Type.Optional(Config),
  data_mounts: Type.Optional(Type.Array(DataMount, { maxItems: 32 })),
  environment: Type.Optional(EnvironmentMap),
  network: Type.Optional(NetworkSettings),
  secrets: Type.Optional(SecretNames),
  fork: Type.Optional(
    Type.Union([DnsLabel, SnapshotId], {
      description: 'A box of this project (its root at this instant) or a snapshot id of this project.',
    }),
  ),
  tags: Type.Optional(TagMap),
  lifecycle: Type.Optional(LifecycleInput),
});
export type BoxCreate = Static<typeof BoxCreate>;

export const BoxUpdate = ClosedObject({
  config: Type.Optional(Config),
  environment: Type.Optional(EnvironmentMap),
  network: Type.Optional(NetworkSettings),
  secrets: Type.Optional(SecretNames),
  port: Type.Optional(Type.Union([Int32NonNegative, Type.Null()])),
  tags: Type.Optional(TagMap),
  termination_grace_period_seconds: Type.Optional(
    Type.Union([Int32NonNegative, Type.Null()], {
      description: `Seconds between SIGTERM and SIGKILL on stop (default 10). Stored as given; values above ${MAX_GRACE_SECONDS} act as ${MAX_GRACE_SECONDS}.`,
    }),
  ),
  lifecycle: Type.Optional(LifecycleInput),
});
export type BoxUpdate = Static<typeof BoxUpdate>;

export const BoxList = Type.Object({ items: Type.Array(Box), next_cursor: Type.Union([Type.String(), Type.Null()]) });
export type BoxList = Static<typeof BoxList>;

export const BoxListQuery = ClosedObject({
  status: Type.Optional(BoxStatus),
  tag: Type.Optional(
    Type.Union([Type.String({ pattern: '^[^:]+:.*$' }), Type.Array(Type.String({ pattern: '^[^:]+:.*$' }))], {
      description: 'k:v; repeat to require several tags',
    }),
  ),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 })),
  cursor: Type.Optional(Type.String({ maxLength: 200 })),
});
export type BoxListQuery = Static<typeof BoxListQuery>;

export const LogsQuery = ClosedObject({
  follow: Type.Optional(Type.Boolean({ default: false })),
  tail: Type.Optional(Type.Integer({ minimum: 0, maximum: 100000, description: 'Lines from the end; omitted: all.' })),
});

export const DEFAULT_CONFIG: ResolvedConfig = {
  cpus: 1,
  ram_mb: 1024,
  region: 'local',
  storage_gb: 10,
  pids_limit: 1024,
};
export const DEFAULT_GRACE_SECONDS = 10;

/** The events of boxes on GET /v1/events, by kind (merged into shared/events.ts). */
export interface BoxEvents {
  'box.created': { box: Box };
  'box.updated': { box: Box };
  'box.status': { box: Box };
  'box.deleted': { box: Box };
  /** The kernel killed a process of the box for memory: its main process, or one started by exec or a console. */
  'box.oom': { box: string; id: string; process: 'main' | 'exec'; at: string };
  /** The clocks changed the box: paused or stopped it for idleness, or deleted it (auto_delete, expired). */
  'box.lifecycle': { box: string; id: string; action: LifecycleAction; reason: LifecycleReason; at: string };
}

export const BOX_EVENTS = {
  'box.created': 'a box was recorded (status creating)',
  'box.updated': 'a box changed: its config, environment, network, tags, port, mounts or root',
  'box.status': "a box's status (or status reason) changed",
  'box.deleted': 'a box and its container are gone',
  'box.oom': 'the kernel killed a process of the box for memory',
  'box.lifecycle': "the box's lifecycle clocks paused, stopped or deleted it (reason idle, expired or auto_delete)",
} as const satisfies Record<keyof BoxEvents, string>;
