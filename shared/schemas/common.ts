import { Type, type Static, type TObject, type TProperties } from '@sinclair/typebox';

/**
 * An object a request gives (a body, a query, params) that refuses the fields it does not name: a
 * misspelt field is a 400 that names it, never silently ignored.
 */
export function ClosedObject<T extends TProperties>(properties: T): TObject<T> {
  return Type.Object(properties, { additionalProperties: false });
}

export const DNS_LABEL_PATTERN = '^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$';

/**
 * An image reference by the Docker reference grammar (distribution/reference):
 * `[domain[:port]/]path-component[/path-component...][:tag][@digest]`, path components
 * lower-case. Written without nested optional repetition so a JS regex cannot backtrack
 * exponentially (the grammar's `[-]*` separator becomes `-+`, which matches the same names).
 */
const ALNUM = '[a-z0-9]+';
const PATH_COMPONENT = `${ALNUM}(?:(?:[._]|__|-+)${ALNUM})*`;
const DOMAIN_COMPONENT = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const DOMAIN = `(?:${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*|\\[[a-fA-F0-9:]+\\])(?::[0-9]+)?`;
const TAG = '[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}';
const DIGEST = '[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}';
export const IMAGE_REFERENCE_PATTERN = `^(?:${DOMAIN}/)?${PATH_COMPONENT}(?:/${PATH_COMPONENT})*(?::${TAG})?(?:@${DIGEST})?$`;

export const ImageReference = Type.String({
  minLength: 1,
  maxLength: 512,
  pattern: IMAGE_REFERENCE_PATTERN,
  description:
    'An image reference, e.g. debian:bookworm-slim, registry.example:5000/team/app:1.2 or name@sha256:<hex>.',
});

export function isImageReference(value: string): boolean {
  return value.length <= 512 && new RegExp(IMAGE_REFERENCE_PATTERN, 'u').test(value);
}

export const DnsLabel = Type.String({
  pattern: DNS_LABEL_PATTERN,
  maxLength: 63,
  description: 'A DNS label: lower-case letters, digits and hyphens, 1-63 characters, no leading or trailing hyphen.',
});

export const Timestamp = Type.String({
  format: 'date-time',
  description: 'RFC 3339 UTC with milliseconds, e.g. 2026-11-22T08:15:02.123Z',
});

/** The pattern of an id the core makes: `prefix_` and 20 base32 characters. */
export function prefixedIdPattern(prefix: string): string {
  return `^${prefix}_[a-z2-7]{20}$`;
}

/** An id the core makes, `what` saying of what ("A snapshot id"). */
export function PrefixedId(prefix: string, what: string) {
  return Type.String({
    pattern: prefixedIdPattern(prefix),
    maxLength: prefix.length + 21,
    description: `${what}: ${prefix}_ and 20 base32 characters.`,
  });
}

export const Int32NonNegative = Type.Integer({ minimum: 0, maximum: 2147483647 });

export const ProjectParams = ClosedObject({ project: DnsLabel });
export const BoxParams = ClosedObject({ project: DnsLabel, name: DnsLabel });
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

/**
 * Environment variable names as POSIX shells accept them; values without NUL (the engine passes
 * `KEY=value` C strings). A Record's key pattern becomes `patternProperties`, which alone lets
 * other keys through: `additionalProperties: false` makes a bad key an error.
 */
/** A string without NUL characters. */
export const NO_NUL_PATTERN = '^[^\\u0000]*$';
export const ENV_NAME_PATTERN = '^[A-Za-z_][A-Za-z0-9_]{0,255}$';
export const EnvironmentMap = Type.Record(
  Type.String({ pattern: ENV_NAME_PATTERN }),
  Type.String({ maxLength: 32768, pattern: NO_NUL_PATTERN }),
  {
    additionalProperties: false,
    maxProperties: 1024,
    description:
      'Environment variables, name ([A-Za-z_][A-Za-z0-9_]*, up to 256 characters) to value (no NUL character).',
  },
);

export const TAG_KEY_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._/-]{0,62}$';

export const TagMap = Type.Record(Type.String({ pattern: TAG_KEY_PATTERN }), Type.String({ maxLength: 256 }), {
  additionalProperties: false,
  description: 'Tags, key ([A-Za-z0-9][A-Za-z0-9._/-]{0,62}) to value.',
});
