import type { Box } from './schemas/box';
import type { BaseImportProgress, Snapshot } from './schemas/snapshots';
import type { Deployment, Service } from './schemas/services';
import type { Base } from './schemas/system';
import type { Volume, VolumeBackup } from './schemas/volumes';

/** The server-sent events of GET /v1/events, by type. */
export type BoxdeskEvent =
  | EventOf<'box.created', { box: Box }>
  | EventOf<'box.updated', { box: Box }>
  | EventOf<'box.status', { box: Box }>
  | EventOf<'box.deleted', { box: Box }>
  | EventOf<'box.published', { box: Box }>
  | EventOf<'box.unpublished', { box: Box }>
  /** The kernel killed a process of the box for memory: its main process, or one started by exec or a console. */
  | EventOf<'box.oom', { box: string; id: string; process: 'main' | 'exec'; at: string }>
  | EventOf<'base.pull', { name: string; image: string; progress: string; done: boolean; error?: string }>
  | EventOf<'snapshot.created', { snapshot: Snapshot }>
  | EventOf<'snapshot.deleted', { snapshot: Snapshot }>
  | EventOf<'base.created', { base: Base }>
  | EventOf<'base.deleted', { base: Base }>
  | EventOf<'base.import', BaseImportProgress>
  | EventOf<'volume.created', { volume: Volume }>
  | EventOf<'volume.updated', { volume: Volume }>
  | EventOf<'volume.deleted', { volume: Volume }>
  /** A backup started (pending), then ended (done or failed). */
  | EventOf<'volume.backup', { volume: string; backup: VolumeBackup }>
  /** A backup deleted, by request or past the volume's retention (a deleted snapshot is told as volume.updated). */
  | EventOf<'volume.backup.deleted', { volume: string; backup: VolumeBackup }>
  | EventOf<'service.created', { service: Service }>
  | EventOf<'service.updated', { service: Service }>
  | EventOf<'service.deleted', { service: Service }>
  /** Every status or step change of a deployment (the service's representation follows as service.updated when its live deployment changes). */
  | EventOf<'deployment.updated', { service: string; deployment: Deployment }>
  | EventOf<'engine.status', { up: boolean; reason: string | null }>;

interface EventOf<T extends string, D> {
  id: string;
  type: T;
  data: D;
  /** The project the event concerns; null for machine-wide events. */
  project: string | null;
  time: string;
}

export type EventType = BoxdeskEvent['type'];

/**
 * Sent instead of a replay when Last-Event-ID is unknown or too old: the
 * client should refetch what it shows.
 */
export const RESET_EVENT = 'reset';
