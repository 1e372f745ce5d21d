const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];

/** Bytes in binary units with one decimal (`512 B`, `1.5 KiB`, `256.0 MiB`); null (not measured) is a dash. */
export function formatBytes(bytes: number | null | undefined): string {
  if (bytes === null || bytes === undefined) return '—';
  let v = bytes;
  let u = 0;
  while (Math.abs(v) >= 1024 && u < UNITS.length - 1) {
    v /= 1024;
    u++;
  }
  return u === 0 ? `${v} B` : `${v.toFixed(1)} ${UNITS[u]}`;
}

/** An instant as the user's locale writes a date and time. */
export function formatTime(iso: string): string {
  return new Date(iso).toLocaleString();
}

const STEPS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['second', 60],
  ['minute', 60],
  ['hour', 24],
  ['day', 30],
  ['month', 12],
  ['year', Infinity],
];

/** An instant relative to `now`: "just now", "5 minutes ago", "in 2 hours". */
export function formatRelative(iso: string, now = Date.now()): string {
  let v = (Date.parse(iso) - now) / 1000;
  if (Math.abs(v) < 10) return 'just now';
  const rtf = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
  for (const [unit, size] of STEPS) {
    if (Math.abs(v) < size) return rtf.format(Math.round(v), unit);
    v /= size;
  }
  return formatTime(iso);
}
