import { BOX_EVENTS, type BoxEvents } from './schemas/box';
import { BUILD_EVENTS, type BuildEvents } from './schemas/builds';
import { EGRESS_EVENTS, type EgressEvents } from './schemas/egress';
import { JOB_EVENTS, type JobEvents } from './schemas/jobs';
import { PUBLISHING_EVENTS, type PublishingEvents } from './schemas/publishing';
import { SERVICE_EVENTS, type ServiceEvents } from './schemas/services';
import { SNAPSHOT_EVENTS, type SnapshotEvents } from './schemas/snapshots';
import { BASE_EVENTS, ENGINE_EVENTS, type BaseEvents, type EngineEvents } from './schemas/system';
import { VOLUME_EVENTS, type VolumeEvents } from './schemas/volumes';

/**
 * Every event kind of GET /v1/events and its data. Each resource declares its kinds beside its
 * schema (`BoxEvents` in schemas/box.ts, with `BOX_EVENTS` saying what each means); they are
 * merged here, one name each, in the types and in `EVENT_DESCRIPTIONS`.
 */
export interface EventMap
  extends
    BoxEvents,
    EgressEvents,
    PublishingEvents,
    BaseEvents,
    SnapshotEvents,
    VolumeEvents,
    ServiceEvents,
    EngineEvents,
    JobEvents,
    BuildEvents {}

export type EventType = keyof EventMap;

/** Every event kind with what it means: the contract the core's modules, together, emit (one name each). */
export const EVENT_DESCRIPTIONS = {
  ...BOX_EVENTS,
  ...EGRESS_EVENTS,
  ...PUBLISHING_EVENTS,
  ...BASE_EVENTS,
  ...SNAPSHOT_EVENTS,
  ...VOLUME_EVENTS,
  ...SERVICE_EVENTS,
  ...ENGINE_EVENTS,
  ...JOB_EVENTS,
  ...BUILD_EVENTS,
} as const satisfies Record<EventType, string>;

/** The server-sent events of GET /v1/events, by type. */
export type BoxdeskEvent = { [T in EventType]: EventOf<T, EventMap[T]> }[EventType];

interface EventOf<T extends string, D> {
  id: string;
  type: T;
  data: D;
  /** The project the event concerns; null for machine-wide events. */
  project: string | null;
  time: string;
}

/** Some event kinds, each with what it means (a core module declares the kinds it emits so). */
export type EventDescriptions = { readonly [T in EventType]?: string };
