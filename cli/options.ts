/** Value parsers for commander options, and the usage error every one of them throws. */

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
export function wholeNumberOrNone(flag: string): (raw: string) => number | null {
  const parse = wholeNumber(flag);
  return (raw) => (raw === 'none' ? null : parse(raw));
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
