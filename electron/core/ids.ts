import { randomBytes } from 'node:crypto';

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

/** A random base32 string; 20 characters carry 100 bits. */
export function randomBase32(length: number): string {
  const bytes = randomBytes(length);
  let out = '';
  for (let i = 0; i < length; i++) out += BASE32[bytes[i]! & 31];
  return out;
}

/**
 * A new id: `<prefix>_` and 20 base32 characters. Each module names its own prefixes (its
 * `idPrefixes`, checked unique across modules at start), so this file knows none of them.
 */
export function newId(prefix: string): string {
  return `${prefix}_${randomBase32(20)}`;
}

export function now(): string {
  return new Date().toISOString();
}
