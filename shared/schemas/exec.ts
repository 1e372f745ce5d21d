import { Type, type Static } from '@sinclair/typebox';
import { ClosedObject, EnvironmentMap } from './common';

export const ExecRequest = ClosedObject({
  command: Type.Array(Type.String({ maxLength: 65536 }), {
    minItems: 1,
    maxItems: 4096,
    description: 'argv; no shell is involved unless you name one',
  }),
  env: Type.Optional(EnvironmentMap),
  cwd: Type.Optional(Type.String({ pattern: '^/', maxLength: 4096 })),
  stdin: Type.Optional(Type.String({ description: 'Written to the process, then stdin is closed.' })),
  timeout_s: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 86400,
      description: 'Answer after this many seconds at the latest (timed_out: true) and kill the whole process tree.',
    }),
  ),
  background: Type.Optional(
    Type.Boolean({
      description:
        'Run as a job: answer 202 {id, status} at once; read its output from …/jobs/{id}/output. Takes neither stdin nor timeout_s.',
    }),
  ),
});
export type ExecRequest = Static<typeof ExecRequest>;

export const ExecResult = Type.Object({
  exit_code: Type.Integer(),
  stdout: Type.String(),
  stderr: Type.String(),
  truncated: Type.Boolean({
    description: 'true when stdout or stderr passed the per-stream cap and the rest was dropped',
  }),
  timed_out: Type.Boolean({
    description: 'true when timeout_s passed: the answer comes then, and the process tree is killed',
  }),
  oom_killed: Type.Boolean({
    description:
      'true when the kernel killed the process for memory (the box hit config.ram_mb); exit_code is then 137',
  }),
  duration_ms: Type.Integer(),
});
export type ExecResult = Static<typeof ExecResult>;

/** One line of the application/x-ndjson exec stream. */
export type ExecStreamLine =
  { type: 'stdout' | 'stderr'; data: string } | ({ type: 'exit' } & Omit<ExecResult, 'stdout' | 'stderr'>);
