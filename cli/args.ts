/** A small argument parser: long and short options, `--opt=value`, repeatable options, and `--`. */

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export type OptionKind = 'string' | 'boolean' | 'list';

export interface OptionSpec {
  kind: OptionKind;
  short?: string;
  /** Placeholder shown in help, e.g. "N". */
  value?: string;
  help: string;
}

export type OptionSpecs = Record<string, OptionSpec>;

export interface ParsedArgs {
  positionals: string[];
  strings: Record<string, string>;
  booleans: Set<string>;
  lists: Record<string, string[]>;
  /** Everything after `--`, or after the last allowed positional. */
  rest: string[];
}

export interface ParseOptions {
  /** Once this many positionals are read, the remaining arguments go to `rest` untouched (for `box exec NAME CMD -x`). */
  maxPositionals?: number;
}

function lookup(specs: OptionSpecs, arg: string): [string, OptionSpec] | undefined {
  if (arg.startsWith('--')) {
    const name = arg.slice(2);
    const spec = specs[name];
    return spec ? [name, spec] : undefined;
  }
  const short = arg.slice(1);
  return Object.entries(specs).find(([, s]) => s.short === short);
}

export function parseArgs(argv: readonly string[], specs: OptionSpecs, options: ParseOptions = {}): ParsedArgs {
  const out: ParsedArgs = { positionals: [], strings: {}, booleans: new Set(), lists: {}, rest: [] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      out.rest.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith('-') || arg === '-') {
      if (options.maxPositionals !== undefined && out.positionals.length >= options.maxPositionals) {
        out.rest.push(...argv.slice(i));
        break;
      }
      out.positionals.push(arg);
      continue;
    }
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const flag = eq === -1 ? arg : arg.slice(0, eq);
    const found = lookup(specs, flag);
    if (!found) throw new UsageError(`unknown option ${flag}`);
    const [name, spec] = found;
    if (spec.kind === 'boolean') {
      if (eq !== -1) throw new UsageError(`${flag} takes no value`);
      out.booleans.add(name);
      continue;
    }
    let value: string | undefined;
    if (eq !== -1) value = arg.slice(eq + 1);
    else {
      value = argv[++i];
      if (value === undefined) throw new UsageError(`${flag} needs a value${spec.value ? ` (${spec.value})` : ''}`);
    }
    if (spec.kind === 'string') out.strings[name] = value;
    else (out.lists[name] ??= []).push(value);
  }
  return out;
}

/** Finds the command words before which only global options may appear; returns them and the other arguments. */
export function splitCommand(argv: readonly string[], globals: OptionSpecs, depth: (first: string) => number): { command: string[]; args: string[] } {
  const args: string[] = [];
  const command: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      args.push(...argv.slice(i));
      break;
    }
    if (arg.startsWith('-') && arg !== '-') {
      const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
      const found = lookup(globals, eq === -1 ? arg : arg.slice(0, eq));
      args.push(arg);
      if (found && found[1].kind !== 'boolean' && eq === -1 && i + 1 < argv.length) args.push(argv[++i]!);
      continue;
    }
    if (command.length === 0 || command.length < depth(command[0]!)) {
      command.push(arg);
      continue;
    }
    args.push(...argv.slice(i));
    break;
  }
  return { command, args };
}

export function intOption(args: ParsedArgs, name: string, min = 0): number | undefined {
  const raw = args.strings[name];
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(n) || n < min) throw new UsageError(`--${name} must be a whole number${min > 0 ? ` of at least ${min}` : ''}, got "${raw}"`);
  return n;
}

/** `K=V` pairs into a map; with allowRemove, `K-` maps K to null (remove it). */
export function keyValues(items: readonly string[] | undefined, flag: string, allowRemove = false): Record<string, string | null> | undefined {
  if (!items || items.length === 0) return undefined;
  const map: Record<string, string | null> = {};
  for (const item of items) {
    const eq = item.indexOf('=');
    if (eq > 0) map[item.slice(0, eq)] = item.slice(eq + 1);
    else if (allowRemove && item.endsWith('-') && item.length > 1) map[item.slice(0, -1)] = null;
    else throw new UsageError(`--${flag} expects KEY=VALUE${allowRemove ? ' (or KEY- to remove it)' : ''}, got "${item}"`);
  }
  return map;
}

/** keyValues without removals, as a plain string map. */
export function stringMap(items: readonly string[] | undefined, flag: string): Record<string, string> | undefined {
  const map = keyValues(items, flag);
  return map as Record<string, string> | undefined;
}

export function expectPositionals(args: ParsedArgs, names: string[], usage: string): string[] {
  if (args.positionals.length !== names.length) {
    const what = args.positionals.length < names.length ? `missing ${names.slice(args.positionals.length).join(' ')}` : `unexpected argument "${args.positionals[names.length]}"`;
    throw new UsageError(`${what}\nusage: ${usage}`);
  }
  return args.positionals;
}
