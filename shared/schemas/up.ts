import { Type, type Static } from '@sinclair/typebox';
import { ClosedObject, DNS_LABEL_PATTERN } from './common';

/** `POST /v1/projects/{project}/up`: the box's name (default: devcontainer.json's `name`, else `folder`). */
export const UpQuery = ClosedObject({
  name: Type.Optional(Type.String({ pattern: DNS_LABEL_PATTERN, maxLength: 63, description: "The box's name." })),
  folder: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      description: "The folder's own name: the box is named after it when neither name nor devcontainer.json says.",
    }),
  ),
});
export type UpQuery = Static<typeof UpQuery>;

/** What changed in the box's workspace since the last `box up` of the folder (paths relative to it). */
export const UpChanges = Type.Object({
  added: Type.Array(Type.String()),
  changed: Type.Array(Type.String()),
  /** In the last upload, not in this one: listed, left in the box. */
  removed: Type.Array(Type.String()),
});
export type UpChanges = Static<typeof UpChanges>;

export const UP_PHASES = ['upload', 'build', 'box', 'copy', 'command', 'publish'] as const;

/**
 * One line of the answer of `POST …/up` (application/x-ndjson), in order: `progress` as each
 * phase begins, `note` for what is left aside, `build` (the base's build log), `output` (a
 * lifecycle command's output as it comes), and last `done` naming the box, or `error`.
 */
export const UpLine = Type.Union([
  Type.Object({
    type: Type.Literal('progress'),
    phase: Type.Union(UP_PHASES.map((p) => Type.Literal(p))),
    message: Type.String(),
  }),
  Type.Object({ type: Type.Literal('note'), message: Type.String() }),
  Type.Object({
    type: Type.Literal('build'),
    step: Type.Optional(Type.String()),
    stream: Type.Optional(Type.String()),
  }),
  Type.Object({
    type: Type.Literal('output'),
    command: Type.String({ description: 'postCreateCommand or postStartCommand, with its name if it has one.' }),
    stream: Type.Union([Type.Literal('stdout'), Type.Literal('stderr')]),
    data: Type.String(),
  }),
  Type.Object({ type: Type.Literal('error'), message: Type.String() }),
  Type.Object({
    type: Type.Literal('done'),
    box: Type.String(),
    project: Type.String(),
    /** False when the box existed and was brought up to date. */
    created: Type.Boolean(),
    base: Type.String(),
    workspace: Type.String(),
    files: Type.Integer({ description: 'Files in the upload.' }),
    changes: Type.Union([UpChanges, Type.Null()], { description: 'Null on a first up.' }),
    urls: Type.Array(Type.Object({ port: Type.Integer(), url: Type.String() })),
    exit_code: Type.Integer({ description: "The lifecycle commands' exit code: 0 when all ran well (or none ran)." }),
  }),
]);
export type UpLine = Static<typeof UpLine>;
export type UpDone = Extract<UpLine, { type: 'done' }>;
