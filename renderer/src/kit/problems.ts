import { ApiError } from '../../../shared/errors';

/** Where a failed submit shows: at the fields it names, or (`general`) above the buttons. */
export interface PlacedProblem<F extends string> {
  fields: Partial<Record<F, string>>;
  general: unknown;
}

/** A problem's `errors[].path` without its location: `body.config.cpus` and `/config/cpus` → `config.cpus`. */
export function bodyPath(path: string): string {
  return path.replace(/^body/, '').replace(/^[./]/, '').replace(/\//g, '.');
}

/**
 * Places a failure: each `errors[].path` at the field `fieldOf` names, a name
 * already taken (409 `already_exists`) at `taken.field`. What no field claims
 * (another problem, a network failure) is `general`.
 */
export function placeProblem<F extends string>(
  err: unknown,
  fieldOf: (path: string) => F | null,
  taken?: { field: F; hint?: string },
): PlacedProblem<F> {
  const fields: Partial<Record<F, string>> = {};
  if (err === null || err === undefined) return { fields, general: null };
  if (err instanceof ApiError) {
    for (const e of err.errors ?? []) {
      const field = fieldOf(bodyPath(e.path));
      if (field && fields[field] === undefined) fields[field] = e.message;
    }
    if (err.code === 'already_exists' && taken)
      fields[taken.field] = taken.hint ? `${err.message}; ${taken.hint}` : err.message;
  }
  return { fields, general: Object.keys(fields).length > 0 ? null : err };
}
