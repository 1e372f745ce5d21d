/** Value parsers for commander options, the options several commands share, and the usage error they throw. */
import type { Command } from 'commander';
import type { DataMount } from '../shared/schemas/box';

/** A mistake in the command line: exits 2 with the message and a pointer to --help. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** A repeatable option: `--env A=1 --env B=2` collects ['A=1', 'B=2']. */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** A parser for a whole-number option, e.g. `.option('--cpus <N>', 'help', wholeNumber('--cpus', 1))`. */
export function wholeNumber(flag: string, min = 0): (raw: string) => number {
  return (raw) => {
    const n = Number(raw);
    if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(n) || n < min)
      throw new UsageError(`${flag} must be a whole number${min > 0 ? ` of at least ${min}` : ''}, got "${raw}"`);
    return n;
  };
}

/** Like wholeNumber, but `none` means null (clear the field). */
export function wholeNumberOrNone(flag: string): (raw: string) => number | 'none' {
  const parse = wholeNumber(flag);
  // 'none', not null: commander turns a parser's null into ''.
  return (raw) => (raw === 'none' ? 'none' : parse(raw));
}

/** A `…OrNone` flag's value as the API takes it: 'none' is null. */
export function orNull<T>(value: T | 'none'): T | null {
  return value === 'none' ? null : value;
}

/** `K=V` pairs into a map; with allowRemove, `K-` maps K to null (remove it). */
export function keyValues(
  items: readonly string[] | undefined,
  flag: string,
  allowRemove = false,
): Record<string, string | null> | undefined {
  if (!items || items.length === 0) return undefined;
  const map: Record<string, string | null> = {};
  for (const item of items) {
    const eq = item.indexOf('=');
    if (eq > 0) map[item.slice(0, eq)] = item.slice(eq + 1);
    else if (allowRemove && item.endsWith('-') && item.length > 1) map[item.slice(0, -1)] = null;
    else
      throw new UsageError(`--${flag} expects KEY=VALUE${allowRemove ? ' (or KEY- to remove it)' : ''}, got "${item}"`);
  }
  return map;
}

/** keyValues without removals, as a plain string map. */
export function stringMap(items: readonly string[] | undefined, flag: string): Record<string, string> | undefined {
  return keyValues(items, flag) as Record<string, string> | undefined;
}

/** Applies `K=V` and `K-` edits (from keyValues with allowRemove) to a copy of a map. */
export function applyEdits(
  current: Record<string, string>,
  edits: Record<string, string | null>,
): Record<string, string> {
  const next = { ...current };
  for (const [k, v] of Object.entries(edits)) {
    if (v === null) delete next[k];
    else next[k] = v;
  }
  return next;
}

/** `-v VOL:/path[:ro]` as a data mount. */
export function dataMount(spec: string): DataMount {
  const m = /^([^:]+):(\/[^:]*)(?::(ro|rw))?$/.exec(spec);
  if (!m) throw new UsageError(`-v expects VOLUME:/path or VOLUME:/path:ro, got "${spec}"`);
  return { name: m[1]!, path: m[2]!, read_only: m[3] === 'ro' };
}

export interface WaitFlags {
  wait?: boolean;
  timeout?: number;
}

/** `--wait` (what it waits for, in `help`) and `--timeout S` with its default. */
export function waitOptions(cmd: Command, help: string, defaultS: number): Command {
  return cmd
    .option('--wait', help)
    .option('--timeout <S>', `with --wait: give up after S seconds (default ${defaultS})`, wholeNumber('--timeout', 1));
}

/** --timeout means nothing without --wait: say so rather than ignore it. */
export function checkWaitFlags(flags: WaitFlags): void {
  if (flags.timeout !== undefined && !flags.wait) throw new UsageError('--timeout applies only with --wait');
}
