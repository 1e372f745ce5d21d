import { DNS_LABEL_PATTERN, ENV_NAME_PATTERN } from '../shared/schemas/common';
import { ApiError, type FieldError } from '../shared/errors';

/**
 * The API's problems said in the CLI's words: a field as the argument or flag that sets it
 * (`body.config.ram_mb` → `--ram-mb`), a pattern as what a valid value looks like, and a hint's
 * route or query parameter as the command or flag that does it.
 */

/** Body fields whose flag is not the field's own name with - for _. */
const FLAG_OF: Record<string, string> = {
  name: 'NAME',
  environment: '--env',
  tags: '--tag',
  data_mounts: '--volume',
  termination_grace_period_seconds: '--grace',
};

/** `body.config.cpus` → `--cpus`, `body.environment.a b` → `--env "a b"`, `path.name` → `NAME`. */
export function fieldInCliWords(path: string): string {
  const [part, ...rest] = path.split('.');
  if (part === 'path') return rest.join('.').toUpperCase() || 'the path';
  if (part !== 'body' && part !== 'query') return path;
  const segments = rest[0] === 'config' && rest.length > 1 ? rest.slice(1) : rest;
  const [head, ...tail] = segments;
  if (!head) return 'the request';
  const flag = FLAG_OF[head] ?? `--${head.replace(/_/g, '-')}`;
  if (tail.length === 0) return flag;
  const key = tail.join('.');
  return /^\d+$/.test(key) ? `${flag} (number ${Number(key) + 1})` : `${flag} ${JSON.stringify(key)}`;
}

const PATTERN_WORDS: Record<string, string> = {
  [DNS_LABEL_PATTERN]:
    'be 1 to 63 lower-case letters, digits and hyphens, starting and ending with a letter or digit (like web-1)',
  [ENV_NAME_PATTERN]: 'be letters, digits and _, not starting with a digit (like API_URL)',
};

/** `must match ^[a-z0-9]…$` → `must be 1 to 63 lower-case letters, …`; `must be >= 1` → `must be at least 1`. */
export function messageInCliWords(message: string): string {
  return message
    .replace(/must match (\S+)/, (all, pattern: string) =>
      PATTERN_WORDS[pattern] ? `must ${PATTERN_WORDS[pattern]}` : all,
    )
    .replace(/names must match (\S+)\)/, (all, pattern: string) =>
      PATTERN_WORDS[pattern] ? `names must ${PATTERN_WORDS[pattern]})` : all,
    )
    .replace(/must be >= (\S+)/, 'must be at least $1')
    .replace(/must be <= (\S+)/, 'must be at most $1')
    .replace(/is not a known field/, 'is not an option here');
}

/** One line per field error: `NAME must be 1 to 63 lower-case letters, …`. */
export function fieldErrorsInCliWords(errors: readonly FieldError[]): string[] {
  return errors.map((e) => `${fieldInCliWords(e.path)} ${messageInCliWords(e.message)}`);
}

/** Routes and query parameters a core's detail or hint names, and the CLI's way to do the same. */
const PHRASES: [RegExp, string][] = [
  [/GET \/v1\/bases\b/g, '`box base ls`'],
  [/POST \/v1\/bases\b/g, '`box base add`'],
  [/GET \/v1\/system\b/g, '`box health`'],
  [/GET \/v1\/projects\/[^/\s]+\/volumes\b/g, '`box volume ls`'],
  [/POST \/v1\/projects\/[^/\s]+\/volumes\b/g, '`box volume create`'],
  [/\bpass parents=true\b/g, 'pass -p/--parents'],
  [/\bpass recursive=true\b/g, 'pass -r/--recursive'],
];

/** A detail or hint with the routes and parameters it names said as commands and flags. */
export function textInCliWords(text: string): string {
  return PHRASES.reduce((out, [pattern, words]) => out.replace(pattern, words), text);
}

/**
 * What a failure prints: an API refusal in the CLI's words (a validation refusal field by field,
 * else its detail) with its hint; anything else, its message.
 */
export function failureText(err: unknown): string {
  if (!(err instanceof ApiError)) return err instanceof Error ? err.message : String(err);
  // A validation refusal's detail repeats its field errors in the API's words: the fields alone say it.
  const fields = err.code.startsWith('invalid_') && err.errors?.length ? fieldErrorsInCliWords(err.errors) : [];
  const lines = fields.length ? fields : [textInCliWords(err.message)];
  if (err.hint) lines.push(`hint: ${textInCliWords(err.hint)}`);
  return lines.join('\n');
}
