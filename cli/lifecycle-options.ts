/** The lifecycle flags of `box create|fork|update` and `box service create|update`, and how `box ls` shows the next change. */
import { orNull } from './options';
import type { Command } from 'commander';
import type { Box } from '../shared/schemas/box';
import type { LifecycleInput } from '../shared/schemas/box-lifecycle';
import { UsageError } from './options';

const UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400, w: 604800 };

/**
 * `90`, `30s`, `10m`, `1h30m`, `1d`, `2w` in seconds; `none` (or `never`) clears the clock (kept
 * as 'none': commander does not keep a parser's null).
 */
export function durationOrNone(flag: string): (raw: string) => number | 'none' {
  return (raw) => {
    const text = raw.trim().toLowerCase();
    if (text === 'none' || text === 'never') return 'none';
    if (/^\d+$/.test(text) && Number(text) >= 1) return Number(text);
    const parts = [...text.matchAll(/(\d+)([smhdw])/g)];
    const seconds = parts.reduce((sum, [, n, unit]) => sum + Number(n) * UNITS[unit!]!, 0);
    if (parts.map((p) => p[0]).join('') !== text || seconds < 1 || seconds > 2147483647)
      throw new UsageError(`${flag} takes a duration such as 30s, 10m, 1h or 1d (or none), got "${raw}"`);
    return seconds;
  };
}

export interface LifecycleFlags {
  autoPause?: number | 'none';
  autoStop?: number | 'none';
  autoDelete?: number | 'none';
  ttl?: number | 'none';
}

export function lifecycleOptions(cmd: Command): Command {
  return cmd
    .option(
      '--auto-pause <DURATION>',
      'pause the box after it is idle this long (e.g. 10m; none: never)',
      durationOrNone('--auto-pause'),
    )
    .option(
      '--auto-stop <DURATION>',
      'stop the box after it is idle this long (e.g. 1h; none: never)',
      durationOrNone('--auto-stop'),
    )
    .option(
      '--auto-delete <DURATION>',
      'delete the box once it has been stopped this long (e.g. 1d; none: never)',
      durationOrNone('--auto-delete'),
    )
    .option(
      '--ttl <DURATION>',
      'delete the box this long from now, whatever its state (e.g. 8h; none: never)',
      durationOrNone('--ttl'),
    );
}

/** The body's `lifecycle` from the flags given, or undefined when none was. */
export function lifecycleBody(opts: LifecycleFlags, now = Date.now()): LifecycleInput | undefined {
  const body: LifecycleInput = {};
  if (opts.autoPause !== undefined) body.auto_pause_s = orNull(opts.autoPause);
  if (opts.autoStop !== undefined) body.auto_stop_s = orNull(opts.autoStop);
  if (opts.autoDelete !== undefined) body.auto_delete_s = orNull(opts.autoDelete);
  if (opts.ttl !== undefined)
    body.expires_at = opts.ttl === 'none' ? null : new Date(now + opts.ttl * 1000).toISOString();
  return Object.keys(body).length ? body : undefined;
}

/** A span in the CLI's one style (as AGE): 45s, 12m, 3h, 5d. */
function span(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.floor(s / 60)}m`;
  if (s < 172800) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86400)}d`;
}

/** What the clocks do next: "pause in 9m", "delete in 2d (expires)"; empty when nothing will. */
export function nextChangeText(box: Pick<Box, 'next_change'>, now = Date.now()): string {
  const next = box.next_change;
  if (!next) return '';
  const why = next.reason === 'expired' ? ' (expires)' : '';
  return `${next.action} in ${span((Date.parse(next.at) - now) / 1000)}${why}`;
}

/** A clock in words for `box get`: "10m idle → pause". */
export function lifecycleText(box: Pick<Box, 'lifecycle'>): string {
  const l = box.lifecycle;
  if (!l) return '';
  return [
    l.auto_pause_s !== null ? `pause after ${span(l.auto_pause_s)} idle` : null,
    l.auto_stop_s !== null ? `stop after ${span(l.auto_stop_s)} idle` : null,
    l.auto_delete_s !== null ? `delete ${span(l.auto_delete_s)} after a stop` : null,
    l.expires_at !== null ? `expires ${l.expires_at}` : null,
  ]
    .filter(Boolean)
    .join(', ');
}
