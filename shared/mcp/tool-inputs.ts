import { Type, type TProperties } from '@sinclair/typebox';
import { BoxCreate, BoxListQuery, LogsQuery } from '../schemas/box';
import { DNS_LABEL_PATTERN, DnsLabel } from '../schemas/common';
import { ExecRequest } from '../schemas/exec';
import { BaseBuildQuery } from '../schemas/builds';
import { BoxPath, FileDeleteQuery, FileWriteQuery } from '../schemas/files';
import { JobOutputQuery, JobParams } from '../schemas/jobs';
import { PublishRequest } from '../schemas/publishing';
import { RestoreRequest, SnapshotCreate, SnapshotId } from '../schemas/snapshots';
import { EgressQuery } from '../schemas/egress';

/**
 * The MCP tools' input schemas, made of the TypeBox schemas the REST routes validate with, plus
 * `project` (default "default") and `box`. The core checks every request against its route's own
 * schema as well, so a tool can never do what the route would refuse.
 */
const label = (description: string, extra: { default?: string } = {}) =>
  Type.String({ pattern: DNS_LABEL_PATTERN, maxLength: 63, description, ...extra });
const project = Type.Optional(label('The project (default "default")', { default: 'default' }));
const box = label("The box's name");

const input = <P extends TProperties>(properties: P) =>
  Type.Object({ project, ...properties }, { additionalProperties: false });

export const ToolInputs = {
  list_boxes: input(BoxListQuery.properties),
  create_box: input(BoxCreate.properties),
  delete_box: input({ box }),
  stop_box: input({ box }),
  resume_box: input({ box }),
  exec: input({
    box,
    command: Type.Union([
      Type.String({ minLength: 1, maxLength: 65536, description: 'A shell command line, run with /bin/sh -c' }),
      ExecRequest.properties.command,
    ]),
    cwd: ExecRequest.properties.cwd,
    env: ExecRequest.properties.env,
    timeout_s: ExecRequest.properties.timeout_s,
    background: ExecRequest.properties.background,
  }),
  job_output: input({
    box,
    job: JobParams.properties.id,
    stream: JobOutputQuery.properties.stream,
    from: JobOutputQuery.properties.from,
  }),
  kill_job: input({ box, job: JobParams.properties.id }),
  read_file: input({ box, path: BoxPath }),
  write_file: input({
    box,
    path: FileWriteQuery.properties.path,
    mode: FileWriteQuery.properties.mode,
    content: Type.String({ description: "The file's content" }),
    encoding: Type.Optional(
      Type.Union([Type.Literal('utf8'), Type.Literal('base64')], {
        default: 'utf8',
        description: 'How content is written: text (utf8, default) or base64 bytes',
      }),
    ),
  }),
  list_files: input({ box, path: BoxPath }),
  delete_file: input({ box, path: FileDeleteQuery.properties.path, recursive: FileDeleteQuery.properties.recursive }),
  snapshot_box: input({ box, name: SnapshotCreate.properties.name }),
  restore_box: input({ box, snapshot_id: RestoreRequest.properties.snapshot_id }),
  fork_box: input({
    box: Type.Union([DnsLabel, SnapshotId], {
      description: 'What to copy: a box of the project (its root at this instant) or a snapshot id',
    }),
    name: label("The new box's name"),
  }),
  publish_box: input({ box, ...PublishRequest.properties }),
  get_logs: input({ box, tail: LogsQuery.properties.tail }),
  get_egress: input({ box, after: EgressQuery.properties.after }),
  // Bases are the machine's: `project` is taken, like every tool's, and means nothing here.
  create_base: input({
    name: label("The base's name (a base that exists is rebuilt)"),
    dockerfile: Type.String({
      minLength: 1,
      maxLength: 1024 * 1024,
      description: 'The Dockerfile text; FROM boxdesk/<base> names a Boxdesk base (GET /v1/bases lists them)',
    }),
    files: Type.Optional(
      Type.Record(Type.String({ minLength: 1, maxLength: 255 }), Type.String(), {
        description: 'Files of the build context, by relative path: their text (COPY takes them)',
      }),
    ),
    build_args: BaseBuildQuery.properties.build_arg,
    target: BaseBuildQuery.properties.target,
  }),
};

export type ToolName = keyof typeof ToolInputs;
