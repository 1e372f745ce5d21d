import { Type, type Static } from '@sinclair/typebox';
import { ClosedObject, DnsLabel, Timestamp } from './common';

/** A secret's host: a host name (`*.domain` for its subdomains), lower case, no port or scheme. */
export const SECRET_HOST_PATTERN =
  '^(\\*\\.)?[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$';
/** An HTTP header's name (RFC 9110 token). */
export const HEADER_NAME_PATTERN = "^[A-Za-z0-9!#$%&'*+.^_`|~-]+$";

export const SecretName = Type.String({
  ...DnsLabel,
  description:
    'A DNS label; a box given the secret sees a placeholder in the environment variable of this name in upper case, - as _.',
});

export const SecretCreate = ClosedObject({
  name: SecretName,
  value: Type.String({
    minLength: 1,
    maxLength: 8192,
    pattern: '^[^\\r\\n\\u0000]+$',
    description: 'Write-only: never in an answer, a log, an event or a box. One line.',
  }),
  hosts: Type.Array(
    Type.String({
      minLength: 1,
      maxLength: 253,
      pattern: SECRET_HOST_PATTERN,
      description: 'api.example.com, or *.example.com for its subdomains',
    }),
    { minItems: 1, maxItems: 32, description: 'The hosts whose requests get the value.' },
  ),
  header: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 128,
      pattern: HEADER_NAME_PATTERN,
      description:
        'The header added (with the bare value) when a request to the hosts lacks it; default Authorization, as "Bearer <value>".',
    }),
  ),
});
export type SecretCreate = Static<typeof SecretCreate>;

export const Secret = Type.Object({
  name: Type.String(),
  hosts: Type.Array(Type.String()),
  header: Type.Union([Type.String(), Type.Null()]),
  /** The environment variable a box given it sees the placeholder in. */
  env: Type.String(),
  created_at: Timestamp,
});
export type Secret = Static<typeof Secret>;

export const SecretList = Type.Object({ items: Type.Array(Secret) });
export type SecretList = Static<typeof SecretList>;

export const SecretNames = Type.Array(SecretName, {
  maxItems: 32,
  uniqueItems: true,
  description: 'Secrets (POST /v1/secrets) the box holds placeholders of; their values reach only their hosts.',
});

/** The environment variable of a secret: its name in upper case, `-` as `_`. */
export function secretEnvName(name: string): string {
  return name.toUpperCase().replace(/-/g, '_');
}
