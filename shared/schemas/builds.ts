import { Type, type Static } from '@sinclair/typebox';
import { ClosedObject, DnsLabel, Timestamp } from './common';

export const BUILD_STATUSES = ['building', 'done', 'failed', 'cancelled'] as const;
export const BuildStatus = Type.Union(BUILD_STATUSES.map((s) => Type.Literal(s)));
export type BuildStatus = Static<typeof BuildStatus>;

/** A build of a base from a Dockerfile (SPEC: Snapshots and bases, "Builds"). */
export const BaseBuild = Type.Object({
  id: Type.String(),
  base: DnsLabel,
  status: BuildStatus,
  step: Type.Union([Type.String(), Type.Null()], {
    description: 'The step the build is at (or ended at), as the builder names it: "2/4 RUN make".',
  }),
  error: Type.Optional(Type.String({ description: 'Why it failed: the step and its last lines of output.' })),
  image: Type.Union([Type.String(), Type.Null()], { description: 'The image made, once done.' }),
  created_at: Timestamp,
  ended_at: Type.Union([Timestamp, Type.Null()]),
});
export type BaseBuild = Static<typeof BaseBuild>;

export const BaseBuildList = Type.Object({ items: Type.Array(BaseBuild) });
export type BaseBuildList = Static<typeof BaseBuildList>;

const BUILD_ARG_PATTERN = '^[A-Za-z_][A-Za-z0-9_]*=[^\\u0000]*$';

export const BaseBuildQuery = ClosedObject({
  dockerfile: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 1024,
      default: 'Dockerfile',
      description: "The Dockerfile's path in the context.",
    }),
  ),
  build_arg: Type.Optional(
    Type.Array(Type.String({ pattern: BUILD_ARG_PATTERN, maxLength: 65536 }), {
      maxItems: 256,
      description: 'K=V; repeat for several.',
    }),
  ),
  target: Type.Optional(
    Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$', description: 'The stage to build.' }),
  ),
});
export type BaseBuildQuery = Static<typeof BaseBuildQuery>;

export const BuildParams = ClosedObject({ name: DnsLabel, id: Type.String({ pattern: '^bld_[a-z2-7]{20}$' }) });
export type BuildParams = Static<typeof BuildParams>;

export const BuildLogQuery = ClosedObject({
  follow: Type.Optional(
    Type.Union([Type.Boolean(), Type.Literal('1'), Type.Literal('0')], {
      default: false,
      description: 'true (or 1): stream until the build ends.',
    }),
  ),
});
export type BuildLogQuery = Static<typeof BuildLogQuery>;

/** One line of a build's log (application/x-ndjson): a step begins, a piece of its output, or the failure. */
export const BuildLogLine = Type.Object({
  step: Type.Optional(Type.String()),
  stream: Type.Optional(Type.String()),
  error: Type.Optional(Type.String()),
});
export type BuildLogLine = Static<typeof BuildLogLine>;

/** The events of base builds on GET /v1/events, by kind (merged into shared/events.ts). */
export interface BuildEvents {
  'base.build.started': { build: BaseBuild };
  'base.build.step': { build: BaseBuild };
  'base.build.done': { build: BaseBuild };
  'base.build.failed': { build: BaseBuild };
  'base.build.cancelled': { build: BaseBuild };
}

export const BUILD_EVENTS = {
  'base.build.started': 'a build of a base from a Dockerfile began',
  'base.build.step': 'a build went on to its next step',
  'base.build.done': 'a build ended and the base now starts from its image',
  'base.build.failed': 'a build failed (its error names the step and its last lines)',
  'base.build.cancelled': 'a build was cancelled; nothing of it was kept',
} as const satisfies Record<keyof BuildEvents, string>;
