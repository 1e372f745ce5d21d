import { Type, type Static } from '@sinclair/typebox';
import { ClosedObject, DnsLabel, Timestamp } from './common';

export const JOB_ID_PATTERN = '^job_[a-z2-7]{20}$';

export const JobStatus = Type.Union([Type.Literal('running'), Type.Literal('exited'), Type.Literal('killed')]);
export type JobStatus = Static<typeof JobStatus>;

export const Job = Type.Object({
  id: Type.String({ pattern: JOB_ID_PATTERN }),
  command: Type.Array(Type.String()),
  status: JobStatus,
  exit_code: Type.Union([Type.Integer(), Type.Null()], {
    description: 'null while running and when killed',
  }),
  started_at: Timestamp,
  ended_at: Type.Union([Timestamp, Type.Null()]),
  stdout_bytes: Type.Integer({ minimum: 0, description: 'Every byte written, also those the ring no longer holds' }),
  stderr_bytes: Type.Integer({ minimum: 0 }),
});
export type Job = Static<typeof Job>;

export const JobList = Type.Object({ items: Type.Array(Job) });
export type JobList = Static<typeof JobList>;

/** The answer to POST …/exec with background: true. */
export const JobStarted = Type.Object({
  id: Type.String({ pattern: JOB_ID_PATTERN }),
  status: Type.Literal('running'),
});
export type JobStarted = Static<typeof JobStarted>;

export const JobParams = ClosedObject({
  project: DnsLabel,
  name: DnsLabel,
  id: Type.String({ pattern: JOB_ID_PATTERN }),
});
export type JobParams = Static<typeof JobParams>;

export const JobOutputQuery = ClosedObject({
  stream: Type.Optional(Type.Union([Type.Literal('stdout'), Type.Literal('stderr')], { default: 'stdout' })),
  from: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: Number.MAX_SAFE_INTEGER,
      description: 'Byte offset in the stream; older than the ring holds: from its oldest byte',
    }),
  ),
  follow: Type.Optional(Type.Boolean({ default: false, description: 'Stream new bytes until the job ends' })),
});
export type JobOutputQuery = Static<typeof JobOutputQuery>;

/** The response header giving the offset of the answer's first byte. */
export const JOB_OUTPUT_OFFSET_HEADER = 'x-boxdesk-output-offset';

export interface JobEvents {
  'job.started': { project: string; box: string; job: Job };
  'job.ended': { project: string; box: string; job: Job };
  'job.deleted': { project: string; box: string; job: Job };
}

export const JOB_EVENTS = {
  'job.started': 'a background command started in a box',
  'job.ended': 'a background command exited or was killed',
  'job.deleted': 'a background command and its kept output are gone',
} as const satisfies Record<keyof JobEvents, string>;
