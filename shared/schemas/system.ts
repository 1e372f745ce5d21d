import { Type, type Static } from '@sinclair/typebox';
import { ClosedObject, DnsLabel, ImageReference, Timestamp } from './common';
import { SnapshotId, type BaseImportProgress } from './snapshots';

export const EngineInfo = Type.Object({
  name: Type.String(),
  version: Type.Union([Type.String(), Type.Null()]),
  api_version: Type.Union([Type.String(), Type.Null()]),
});

export const Version = Type.Object({ api: Type.Literal('v1'), version: Type.String(), engine: EngineInfo });
export type Version = Static<typeof Version>;

/** The copy-on-write store of the engine's host (SPEC: The copy-on-write store). */
export const StorageInfo = Type.Object(
  {
    driver: Type.Union(
      [Type.Literal('btrfs'), Type.Literal('loop-btrfs'), Type.Literal('reflink'), Type.Literal('copy'), Type.Null()],
      {
        description:
          'btrfs (the host filesystem), loop-btrfs (a btrfs image under the data dir), reflink or copy; null until the store has started (it needs the engine).',
      },
    ),
    path: Type.Union([Type.String(), Type.Null()], { description: "Where the store lives on the engine's host." }),
    size_bytes: Type.Union([Type.Integer(), Type.Null()], { description: "The store's filesystem size." }),
    used_bytes: Type.Union([Type.Integer(), Type.Null()], { description: 'What is used of it.' }),
    reason: Type.Optional(
      Type.String({ description: 'Why a better driver was not taken (or why there is none), when that is so.' }),
    ),
  },
  {},
);
export type StorageInfo = Static<typeof StorageInfo>;

/** `GET /v1/system` (scope read): what the settings page and the create form need to know of the machine. */
/** The base a box starts from unless it names another, and whether a box can start from it now. */
export const DefaultBaseInfo = Type.Object({
  name: Type.String(),
  image: Type.String(),
  available: Type.Boolean({
    description: 'Whether the engine has the image (false while it is pulled, or could not be).',
  }),
  reason: Type.Optional(Type.String({ description: 'Why it is not available, and what to do.' })),
});
export type DefaultBaseInfo = Static<typeof DefaultBaseInfo>;

/** Whether boxes run Boxdesk's agent (fast exec, consoles, jobs and files without the engine in the path), and why not. */
export const AgentInfo = Type.Object({
  available: Type.Boolean(),
  version: Type.Union([Type.String(), Type.Null()], {
    description: "The agent's version; null where it is not built.",
  }),
  reason: Type.Optional(
    Type.String({
      description: 'Why boxes do not get it (exec, consoles, jobs and files then go through the engine).',
    }),
  ),
});
export type AgentInfo = Static<typeof AgentInfo>;

/** Who serves the preview proxy's port: the edge (Boxdesk's own native data path) or the Node proxy alone, and why. */
export const ProxyEdgeInfo = Type.Object({
  available: Type.Boolean({
    description:
      "Whether the edge (Boxdesk's own Go program, beside the core) serves the preview proxy's port now, the Node proxy behind it.",
  }),
  version: Type.Union([Type.String(), Type.Null()], { description: "The edge's version; null where it is not built." }),
  reason: Type.Optional(
    Type.String({ description: 'Why the Node proxy serves the port itself (every request then goes through it).' }),
  ),
  requests: Type.Integer({
    description: 'Requests the edge answered itself (not through the Node proxy) since the core started.',
  }),
  bytes: Type.Integer({ description: 'Bytes of the answers to those requests.' }),
});
export type ProxyEdgeInfo = Static<typeof ProxyEdgeInfo>;

/** The most ready containers one base's warm pool may keep. */
export const MAX_WARM = 32;

/** One base's warm pool (SPEC: Speed: the box agent and the warm pool). */
export const PoolInfo = Type.Object({
  base: Type.String(),
  size: Type.Integer({ description: "The base's warm count: how many paused containers the core keeps ready." }),
  ready: Type.Integer({ description: 'How many are ready now (the rest are being made, or the engine failed).' }),
  hits: Type.Integer({ description: 'Creates that took one of them since the core started.' }),
});
export type PoolInfo = Static<typeof PoolInfo>;

export const SystemInfo = Type.Object({
  version: Type.String(),
  data_dir: Type.String({ description: "The core's data directory (database and token file)." }),
  engine: Type.Object({
    name: Type.String(),
    endpoint: Type.Object(
      {
        url: Type.String({ description: 'unix://…, tcp://…, https://… or ssh://…' }),
        found_by: Type.String({
          description:
            "How the core found it: DOCKER_HOST, the current Docker context, Docker's socket, or Podman's rootful or rootless socket.",
        }),
      },
      { description: 'Where the engine is: the local one as SPEC "Engines and regions" finds it.' },
    ),
    up: Type.Boolean(),
    version: Type.Union([Type.String(), Type.Null()]),
    api_version: Type.Union([Type.String(), Type.Null()]),
    cpus: Type.Union([Type.Integer(), Type.Null()], {
      description: 'CPUs the engine can give a box; null while it is unreachable.',
    }),
    memory_bytes: Type.Union([Type.Integer(), Type.Null()], {
      description: "The engine machine's memory; null while it is unreachable.",
    }),
    storage_limit: Type.Union([Type.Boolean(), Type.Null()], { description: 'Whether config.storage_gb is enforced.' }),
  }),
  default_base: DefaultBaseInfo,
  storage: StorageInfo,
  agent: AgentInfo,
  proxy_port: Type.Integer({
    description:
      "The preview proxy's port: a published box or a service is at http://{name}--{project}.localhost:{proxy_port}.",
  }),
  proxy_edge: ProxyEdgeInfo,
  pools: Type.Array(PoolInfo, {
    description: 'The warm pool of each base whose warm count is above 0, or that still holds containers.',
  }),
});
export type SystemInfo = Static<typeof SystemInfo>;

export const Health = Type.Object(
  {
    status: Type.Union([Type.Literal('ok'), Type.Literal('degraded')]),
    api: Type.Literal('ok'),
    cluster: Type.Object({
      status: Type.Union([Type.Literal('ok'), Type.Literal('unreachable')]),
      engine: Type.String(),
      reason: Type.Optional(Type.String()),
      checked_at: Timestamp,
    }),
  },
  {},
);
export type Health = Static<typeof Health>;

export const Base = Type.Object(
  {
    name: Type.String(),
    image: Type.String(),
    image_id: Type.Union([Type.String(), Type.Null()]),
    size_bytes: Type.Union([Type.Integer(), Type.Null()]),
    created_at: Timestamp,
    from_snapshot: Type.Optional(
      Type.Union([Type.String(), Type.Null()], {
        description: 'The snapshot its root descends from, when it was made from one.',
      }),
    ),
    warm: Type.Integer({
      minimum: 0,
      maximum: MAX_WARM,
      description:
        'Paused containers kept ready for creates of this base (its warm pool; docs/api.md "Warm pool"). The base "default" starts at 2, others at 0.',
    }),
  },
  {},
);
export type Base = Static<typeof Base>;

export const BaseUpdate = ClosedObject({
  warm: Type.Integer({
    minimum: 0,
    maximum: MAX_WARM,
    description: `How many paused containers to keep ready for creates of this base, 0 to ${MAX_WARM} (0: none, every create is cold).`,
  }),
});
export type BaseUpdate = Static<typeof BaseUpdate>;

export const BaseCreate = Type.Object(
  {
    name: DnsLabel,
    image: Type.Optional(ImageReference),
    from_snapshot: Type.Optional(SnapshotId),
    from_box: Type.Optional(DnsLabel),
    project: Type.Optional(DnsLabel),
  },
  { additionalProperties: false, description: 'Exactly one of image, from_snapshot, from_box.' },
);
export type BaseCreate = Static<typeof BaseCreate>;

export const BaseList = Type.Object({ items: Type.Array(Base) });
export type BaseList = Static<typeof BaseList>;

export const SCOPES = ['read', 'write', 'exec', 'admin'] as const;
export const Scope = Type.Union(SCOPES.map((s) => Type.Literal(s)));
export type Scope = Static<typeof Scope>;

export const TokenCreate = ClosedObject({
  name: Type.String({ minLength: 1, maxLength: 100 }),
  scopes: Type.Array(Scope, { minItems: 1, uniqueItems: true }),
  project: Type.Optional(Type.Union([DnsLabel, Type.Null()])),
});
export type TokenCreate = Static<typeof TokenCreate>;

export const Token = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    scopes: Type.Array(Scope),
    project: Type.Union([Type.String(), Type.Null()]),
    created_at: Timestamp,
    last_used_at: Type.Union([Timestamp, Type.Null()]),
    current: Type.Optional(
      Type.Boolean({
        description:
          'In a list: true for the token that made the request (revoking it locks that client out; --new-admin-token is the way back).',
      }),
    ),
  },
  {},
);
export type Token = Static<typeof Token>;

export const TokenCreated = Type.Intersect([
  Token,
  Type.Object({ token: Type.String({ description: 'The secret, shown only once.' }) }),
]);
export type TokenCreated = Static<typeof TokenCreated>;

export const TokenList = Type.Object({ items: Type.Array(Token) });

/** The events of bases on GET /v1/events, by kind (merged into shared/events.ts). */
export interface BaseEvents {
  'base.pull': { name: string; image: string; progress: string; done: boolean; error?: string };
  'base.created': { base: Base };
  'base.deleted': { base: Base };
  'base.updated': { base: Base };
  'base.import': BaseImportProgress;
}

export const BASE_EVENTS = {
  'base.pull': "progress of the pull of the default base's image, then its end (done, or an error)",
  'base.created': 'a base was made (from an image, a snapshot, a box or a tar)',
  'base.deleted': 'a base was deleted',
  'base.updated': "a base's settings changed (its warm count)",
  'base.import': "progress of a base's tar import, then its end",
} as const satisfies Record<keyof BaseEvents, string>;

/** The engine's events on GET /v1/events (merged into shared/events.ts). */
export interface EngineEvents {
  /** `region`: which engine, where the core drives several (absent: the first, the core's own). */
  'engine.status': { up: boolean; reason: string | null; region?: string };
}

export const ENGINE_EVENTS = {
  'engine.status': 'the container engine became reachable, or unreachable (with the reason)',
} as const satisfies Record<keyof EngineEvents, string>;
