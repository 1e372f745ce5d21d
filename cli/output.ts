import { UsageError } from './options';

export const FORMATS = ['table', 'json', 'yaml'] as const;
export type Format = (typeof FORMATS)[number];

/** The YAML library, read only by a command that prints YAML (prepareFormat). */
let yaml: typeof import('yaml') | undefined;

/** Loads what `format` needs to render; the actions await it before a command runs. */
export async function prepareFormat(format: Format): Promise<void> {
  if (format !== 'yaml' || yaml) return;
  // yaml is CommonJS: a bundle's chunk of it exports the module as its default only.
  const mod = (await import('yaml')) as typeof import('yaml') & { default?: typeof import('yaml') };
  yaml = mod.default ?? mod;
}

export function parseFormat(value: string | undefined): Format {
  if (value === undefined) return 'table';
  if ((FORMATS as readonly string[]).includes(value)) return value as Format;
  throw new UsageError(`-o must be one of ${FORMATS.join(', ')}, got "${value}"`);
}

export interface Column<T> {
  header: string;
  get(row: T): string | number | null | undefined;
}

/** Left-aligned columns separated by two spaces, kubectl style. */
export function table<T>(rows: readonly T[], columns: readonly Column<T>[]): string {
  const cells = [columns.map((c) => c.header), ...rows.map((r) => columns.map((c) => cell(c.get(r))))];
  const widths = columns.map((_, i) => Math.max(...cells.map((line) => line[i]!.length)));
  return (
    cells
      .map((line) =>
        line
          .map((v, i) => (i === line.length - 1 ? v : v.padEnd(widths[i]!)))
          .join('  ')
          .trimEnd(),
      )
      .join('\n') + '\n'
  );
}

/** One record as "field: value" lines. */
export function details(fields: readonly [string, string | number | null | undefined][]): string {
  const width = Math.max(...fields.map(([k]) => k.length)) + 1;
  return fields.map(([k, v]) => `${`${k}:`.padEnd(width)} ${cell(v)}`.trimEnd()).join('\n') + '\n';
}

function cell(v: string | number | null | undefined): string {
  return v === null || v === undefined || v === '' ? '-' : String(v);
}

export function map(m: Record<string, string> | null | undefined, sep = '='): string {
  const entries = Object.entries(m ?? {});
  return entries.length ? entries.map(([k, v]) => `${k}${sep}${v}`).join(',') : '-';
}

/** Renders data as the chosen format; `asTable` is used only for table. */
export function render(format: Format, data: unknown, asTable: () => string): string {
  if (format === 'json') return JSON.stringify(data, null, 2) + '\n';
  if (format === 'yaml') {
    if (!yaml) throw new Error('render yaml: prepareFormat was not awaited');
    return yaml.stringify(data);
  }
  return asTable();
}

/** The one byte count of the CLI: 1536 → "1.5 KiB" (tables, transfer bars, stats). */
export function formatBytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = n;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return i === 0 ? `${v} B` : `${v.toFixed(1)} ${units[i]}`;
}

/** The one time span of the CLI, relative like kubectl's AGE column: 45s, 12m, 3h, 5d. */
export function age(iso: string, now = Date.now()): string {
  const s = Math.max(0, Math.floor((now - Date.parse(iso)) / 1000));
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.floor(s / 60)}m`;
  if (s < 172800) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86400)}d`;
}
