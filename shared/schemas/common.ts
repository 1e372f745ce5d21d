import { Type, type Static } from '@sinclair/typebox';

export const DNS_LABEL_PATTERN = '^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$';

export const DnsLabel = Type.String({
  pattern: DNS_LABEL_PATTERN,
  maxLength: 63,
  description: 'A DNS label: lower-case letters, digits and hyphens, 1-63 characters, no leading or trailing hyphen.',
});

export const Timestamp = Type.String({
  format: 'date-time',
  description: 'RFC 3339 UTC with milliseconds, e.g. 2026-11-22T08:15:02.123Z',
});

export const Int32NonNegative = Type.Integer({ minimum: 0, maximum: 2147483647 });

export const ProjectParams = Type.Object({ project: DnsLabel }, { additionalProperties: false });
export const BoxParams = Type.Object({ project: DnsLabel, name: DnsLabel }, { additionalProperties: false });
export type BoxParams = Static<typeof BoxParams>;

export const FieldErrorSchema = Type.Object({ path: Type.String(), message: Type.String() });

export const ProblemSchema = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    code: Type.String(),
    errors: Type.Optional(Type.Array(FieldErrorSchema)),
    hint: Type.Optional(Type.String()),
  },
  { description: 'RFC 9457 problem document' },
);

/** Environment variable names as POSIX shells accept them. */
export const ENV_NAME_PATTERN = '^[A-Za-z_][A-Za-z0-9_]*$';
export const TAG_KEY_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._/-]{0,62}$';

export const EnvironmentMap = Type.Record(Type.String({ pattern: ENV_NAME_PATTERN, maxLength: 256 }), Type.String({ maxLength: 32768 }), {
  description: 'Environment variables, name to value.',
});

export const TagMap = Type.Record(Type.String({ pattern: TAG_KEY_PATTERN }), Type.String({ maxLength: 256 }), {
  description: 'Tags, key to value.',
});
