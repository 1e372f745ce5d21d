/**
 * @boxdesk/sdk: drive Boxdesk boxes from a script or an agent.
 *
 *     import { Boxdesk } from '@boxdesk/sdk';
 *     const bd = new Boxdesk();
 *     const box = await bd.boxes.create({ name: 'scratch' });
 *     const { exit_code, stdout } = await box.exec(['echo', 'hi']);
 */
export { Boxdesk, Boxes, type BoxdeskOptions, type BoxSpec, type ListOptions } from './boxdesk';
export { Box, BoxFiles, type Command, type ExecOptions, type FileData } from './box';
export { DEFAULT_RETRY, retryAfterMs, retryingFetch, type RetryPolicy } from './retry';
export { resolveConnection, type Connection } from './connection';
export { BoxdeskClient, type ClientOptions, type FetchLike, type FetchResponse } from '../../shared/client';
export {
  readEvents,
  readServerSentEvents,
  type ServerSentEvent,
  type StreamedEvent,
} from '../../shared/calls/event-stream';
export { ApiError, type ErrorCode, type FieldError, type Problem } from '../../shared/errors';
export type { BoxdeskEvent, EventType } from '../../shared/events';
export type { Box as BoxInfo, BoxCreate, BoxList, BoxUpdate } from '../../shared/schemas/box';
export type { ExecRequest, ExecResult, ExecStreamLine } from '../../shared/schemas/exec';
export type { FileList, FileStat } from '../../shared/schemas/files';
export type { Job, JobStarted } from '../../shared/schemas/jobs';
export type { PublishRequest } from '../../shared/schemas/publishing';
export type { Secret, SecretCreate } from '../../shared/schemas/secrets';
export type { Region, RegionList } from '../../shared/schemas/regions';
export type { Snapshot, SnapshotCreate } from '../../shared/schemas/snapshots';
export type { UpChanges, UpDone, UpLine } from '../../shared/schemas/up';
export type { UpOptions } from '../../shared/client';
