import { DNS_LABEL_PATTERN } from '../../../shared/schemas/common';

/** The schemas' rules as form validators: each returns what is wrong (said so the user can fix it), or null. */

const DNS_LABEL = new RegExp(DNS_LABEL_PATTERN);
export const NAME_RULE = 'Use 1–63 lower-case letters, digits and hyphens, starting and ending with a letter or digit.';

export function isDnsLabel(value: string): boolean {
  return DNS_LABEL.test(value);
}

/** A name the API checks with DNS_LABEL_PATTERN (boxes, volumes, bases, snapshots, projects). */
export function dnsLabelError(value: string): string | null {
  return DNS_LABEL.test(value) ? null : value === '' ? 'A name is needed' : NAME_RULE;
}

export interface NumberRule {
  /** The field, as the sentence's subject: "CPUs", "The interval". */
  what: string;
  min: number;
  /** null: no upper bound known (e.g. the engine did not say). */
  max?: number | null;
  /** Decimals allowed; whole numbers by default. */
  decimals?: boolean;
  /** The message when empty; without it, empty means "the default". */
  required?: string;
  /** Said after the bounds, e.g. "(what the engine has)". */
  note?: string;
}

/** A number field bounded as the schema bounds it; '' is what an emptied input holds. */
export function numberError(value: number | string, rule: NumberRule): string | null {
  if (value === '') return rule.required ?? null;
  const n = Number(value);
  if (!Number.isFinite(n)) return `${rule.what} must be a number`;
  if (!rule.decimals && !Number.isInteger(n)) return `${rule.what} must be a whole number`;
  const max = rule.max ?? null;
  if (n >= rule.min && (max === null || n <= max)) return null;
  const bounds = max === null ? `at least ${rule.min}` : `from ${rule.min} to ${max}`;
  return `${rule.what} must be ${bounds}${rule.note ? ` ${rule.note}` : ''}`;
}

/** A TCP port a box serves on. */
export function portError(value: number | string, required: string): string | null {
  return numberError(value, { what: 'A port', min: 1, max: 65535, required });
}
