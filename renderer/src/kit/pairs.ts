import type { ReactNode } from 'react';
import { ENV_NAME_PATTERN, TAG_KEY_PATTERN } from '../../../shared/schemas/common';

/** One row of a name = value editor (environment variables, tags). */
export interface Pair {
  key: string;
  value: string;
}

/** The rows as the API's map; rows without a name are left out. */
export function pairsToMap(pairs: Pair[]): Record<string, string> {
  return Object.fromEntries(pairs.filter((p) => p.key.trim() !== '').map((p) => [p.key.trim(), p.value]));
}

export function mapToPairs(map: Record<string, string> | undefined): Pair[] {
  return Object.entries(map ?? {}).map(([key, value]) => ({ key, value }));
}

/** First problem with the keys, or null: each must match the schema's pattern and appear once. */
export function pairsError(pairs: Pair[], pattern: RegExp, noun: string, hint: string): string | null {
  const seen = new Set<string>();
  for (const { key } of pairs) {
    const k = key.trim();
    if (k === '') continue;
    if (!pattern.test(k)) return `${noun} "${k}": ${hint}`;
    if (seen.has(k)) return `${noun} "${k}" appears twice`;
    seen.add(k);
  }
  return null;
}

/** The schema's rules for environment names and tag keys, and how to say them. */
export const PAIR_KINDS = {
  environment: {
    noun: 'variable',
    pattern: new RegExp(ENV_NAME_PATTERN),
    hint: 'letters, digits, _',
    rule: 'letters, digits and _, not starting with a digit',
  },
  tags: {
    noun: 'tag',
    pattern: new RegExp(TAG_KEY_PATTERN),
    hint: 'letters, digits, . _ / -',
    rule: 'letters, digits and . _ / -, starting with a letter or digit',
  },
};

export type PairKind = keyof typeof PAIR_KINDS;

/** The first problem with environment variables' names or tags' keys, as you type. */
export function pairsRule(kind: PairKind): (pairs: Pair[]) => string | null {
  const k = PAIR_KINDS[kind];
  const noun = k.noun === 'variable' ? 'Variable' : 'Tag';
  return (pairs) => pairsError(pairs, k.pattern, noun, k.rule);
}

interface PairsForm<F extends string> {
  values: Record<F, Pair[]>;
  errors: Record<string, ReactNode>;
  setFieldValue(path: F, value: Pair[]): void;
}

/** A form's list of pairs as a KeyValueEditor's props. */
export function bindPairs<F extends string>(form: PairsForm<NoInfer<F>>, field: F) {
  return {
    pairs: form.values[field],
    error: form.errors[field] as string | undefined,
    onChange: (pairs: Pair[]) => form.setFieldValue(field, pairs),
  };
}
