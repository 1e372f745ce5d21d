import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { EventDescriptions } from '../../shared/events';
import type { CoreConfig } from './config';
import type { Db } from './db/database';
import type { Migration } from './db/migrate';
import type { AgentReport } from './engine/agent';
import type { AgentHub } from './engine/agent/hub';
import type { ContainerEngine } from './engine/container-engine';
import type { EngineMonitor } from './engine/engine-monitor';
import type { Regions } from './engine/regions/regions';
import type { EventBus } from './events/event-bus';
import type { SocketRouter } from './http/socket-router';

/** What the core gives every module's `create`. */
export interface CoreContext {
  config: CoreConfig;
  /** The one database; a module reads and writes only the tables its own migrations made. */
  db: Db;
  /** Every region's engine behind one interface (engine/regions/regional-engine.ts). */
  engine: ContainerEngine;
  /** The engines the core drives, each a region; the first is the default. */
  regions: Regions;
  /** Whether boxes get Boxdesk's agent (engine/agent/), and why not. */
  agent: AgentReport;
  /** The box agents' sockets, where boxes have the agent (it holds a box's main process until its rules are set). */
  agentHub?: AgentHub | null;
  monitor: EngineMonitor;
  bus: EventBus;
  log: FastifyBaseLogger;
  /** This data dir's id: it labels everything the core makes in the engine. */
  instanceId: string;
  /** How long a box mutation may wait in its box's queue before answering 409 (tests shorten it). */
  boxQueueWaitMs?: number;
  /** How deep a box's root image may grow before it is flattened (tests lower it). */
  maxImageLayers?: number;
}

/** What a module's `routes` gets. */
export interface HttpContext {
  app: FastifyInstance;
  /** The one WebSocket upgrade path (http/socket-router.ts). */
  sockets: SocketRouter;
}

/**
 * Work the core runs each time the engine comes (back) up, phase after phase, in this order;
 * within a phase, in the order of modules.ts. A step that fails is logged and the others still
 * run, except `settled`, which runs only after a `reconcile` phase that succeeded.
 */
export const ENGINE_UP_PHASES = [
  /** The copy-on-write store starts, in the background (its operations wait for it). */
  'store',
  /** A root replacement a crash cut short is finished, before anything looks at containers. */
  'roots',
  /** Other work a crash cut short: volume copies and restores (boxes they paused are thawed), uploads. */
  'repair',
  /** The box reconciler: engine events, then every box. */
  'reconcile',
  /** Once the boxes agree with the store: stray service colours go, the default base's image is pulled. */
  'settled',
] as const;
export type EngineUpPhase = (typeof ENGINE_UP_PHASES)[number];

/** Work the core runs once at start when the engine is up, after the engine-up phases, before the API answers. */
export const START_PHASES = [
  /** Snapshots a crash cut short are finished or forgotten. */
  'recover',
  /** Images of this core that nothing names go. */
  'collect',
] as const;
export type StartPhase = (typeof START_PHASES)[number];

type Hook<I> = (instance: I, ctx: CoreContext) => void | Promise<void>;

/**
 * A resource of the core: its tables, its event kinds, how it is made from the ports of the
 * modules it needs, its routes and its part in the core's life. `core.ts` runs them; `modules.ts`
 * lists them, each after the modules it needs.
 */
export interface CoreModule<Name extends string = string, Instance = unknown, Port = unknown> {
  readonly name: Name;
  /** Modules whose ports `create` takes; modules.ts lists them earlier (checked at start). */
  readonly needs: readonly AnyModule[];
  /** Its own tables, numbered in its folder: the Nth entry is its version N. Append only. */
  readonly migrations: readonly Migration[];
  /** The event kinds it emits (their payloads are typed in shared/). */
  readonly events: EventDescriptions;
  /** The prefixes of the ids it makes (`box` for box_…), unique across modules. */
  readonly idPrefixes: readonly string[];
  create(ctx: CoreContext, ports: Record<string, unknown>): Instance;
  /** What other modules get of it (its port). */
  port(instance: Instance): Port;
  routes?(http: HttpContext, instance: Instance): void;
  /** Before the engine is watched and before the API answers, in module order. */
  start?: Hook<Instance>;
  engineUp?: Partial<Record<EngineUpPhase, Hook<Instance>>>;
  atStart?: Partial<Record<StartPhase, Hook<Instance>>>;
  /** At close, in reverse module order (a module goes before those it needs). */
  dispose?: Hook<Instance>;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a module of any instance and port
export type AnyModule = CoreModule<string, any, any>;

/** The port a module gives the modules that need it. */
export type PortOf<M> = M extends CoreModule<string, infer _I, infer P> ? P : never;

/** `create`'s second argument: each needed module's port under its name. */
export type PortsOf<Needs extends readonly AnyModule[]> = { [M in Needs[number] as M['name']]: PortOf<M> };

interface ModuleSpec<Name extends string, Needs extends readonly AnyModule[], Instance, Port> extends Omit<
  CoreModule<Name, Instance, Port>,
  'needs' | 'create' | 'port' | 'events' | 'idPrefixes'
> {
  readonly needs: Needs;
  readonly events?: EventDescriptions;
  readonly idPrefixes?: readonly string[];
  create(ctx: CoreContext, ports: PortsOf<Needs>): Instance;
  /** Omitted: the instance itself is the port. */
  port?(instance: Instance): Port;
}

/** A module, with `create` typed by what it needs. */
export function defineModule<
  const Name extends string,
  const Needs extends readonly AnyModule[],
  Instance,
  Port = Instance,
>(spec: ModuleSpec<Name, Needs, Instance, Port>): CoreModule<Name, Instance, Port> {
  return {
    events: {},
    idPrefixes: [],
    port: (instance: Instance) => instance as unknown as Port,
    ...spec,
    create: (ctx, ports) => spec.create(ctx, ports as PortsOf<Needs>),
  };
}
