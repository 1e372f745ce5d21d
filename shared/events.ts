import type { BoxEvents } from './schemas/box';
import type { BuildEvents } from './schemas/builds';
import type { EgressEvents } from './schemas/egress';
import type { JobEvents } from './schemas/jobs';
import type { PublishingEvents } from './schemas/publishing';
import type { ServiceEvents } from './schemas/services';
import type { SnapshotEvents } from './schemas/snapshots';
import type { BaseEvents, EngineEvents } from './schemas/system';
import type { VolumeEvents } from './schemas/volumes';

/**
 * Every event kind of GET /v1/events and its data. Each resource declares its kinds beside its
 * schema (`BoxEvents` in schemas/box.ts, with `BOX_EVENTS` saying what each means); they are
 * merged here, one name each.
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

/**
 * Sent instead of a replay when Last-Event-ID is unknown or too old: the
 * client should refetch what it shows.
 */
export const RESET_EVENT = 'reset';
