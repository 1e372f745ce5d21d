import type { Box } from '../../../../shared/schemas/box';
import type { LifecycleInput } from '../../../../shared/schemas/box-lifecycle';
import { numberError } from '../../kit/validators';

export const UNITS = { seconds: 1, minutes: 60, hours: 3600, days: 86400 } as const;
export type Unit = keyof typeof UNITS;

/** One clock in the form: an amount (empty: never) and its unit. */
export interface ClockValue {
  amount: number | string;
  unit: Unit;
}

/** The clocks as the form has them: pause and stop after idle, delete after a stop, and delete after (from now). */
export interface LifecycleValues {
  pause: ClockValue;
  stop: ClockValue;
  remove: ClockValue;
  ttl: ClockValue;
}

export const CLOCKS = ['pause', 'stop', 'remove', 'ttl'] as const;
export type Clock = (typeof CLOCKS)[number];

/** Seconds in the largest unit that holds them whole (600 → 10 minutes). */
function clockOf(seconds: number | null | undefined, fallback: Unit): ClockValue {
  if (!seconds) return { amount: '', unit: fallback };
  const unit = (['days', 'hours', 'minutes'] as const).find((u) => seconds % UNITS[u] === 0) ?? 'seconds';
  return { amount: seconds / UNITS[unit], unit };
}

/** The form's clocks: the box's own when editing (its expiry is shown, not re-asked), else none set. */
export function lifecycleValues(box?: Box): LifecycleValues {
  const l = box?.lifecycle;
  return {
    pause: clockOf(l?.auto_pause_s, 'minutes'),
    stop: clockOf(l?.auto_stop_s, 'hours'),
    remove: clockOf(l?.auto_delete_s, 'days'),
    ttl: { amount: '', unit: 'hours' },
  };
}

const seconds = (c: ClockValue): number | null => (c.amount === '' ? null : Number(c.amount) * UNITS[c.unit]);

/** Each amount is a whole number of at least 1, and no clock is longer than the API takes. */
export function clockError(c: ClockValue): string | null {
  if (c.amount === '') return null;
  const error = numberError(c.amount, { what: 'The time', min: 1, max: null, note: '' });
  if (error) return error;
  return seconds(c)! > 2147483647 ? 'Too long: at most about 68 years' : null;
}

/**
 * The body's `lifecycle`: every idle clock as the form has it (empty: never); an expiry only
 * when one is given (from now), so saving an edit keeps the box's expiry.
 */
export function lifecycleInput(v: LifecycleValues, now = Date.now()): LifecycleInput {
  const body: LifecycleInput = {
    auto_pause_s: seconds(v.pause),
    auto_stop_s: seconds(v.stop),
    auto_delete_s: seconds(v.remove),
  };
  const ttl = seconds(v.ttl);
  if (ttl !== null) body.expires_at = new Date(now + ttl * 1000).toISOString();
  return body;
}

/** A span in words: 600 → "10 minutes". */
export function spanText(s: number): string {
  const { amount, unit } = clockOf(s, 'seconds');
  return `${amount} ${Number(amount) === 1 ? unit.slice(0, -1) : unit}`;
}

/** The clocks in words, for the box's details ("Pauses after 10 minutes idle; …"); null when none is set. */
export function lifecycleText(box: Pick<Box, 'lifecycle'>): string | null {
  const l = box.lifecycle;
  if (!l) return null;
  const parts = [
    l.auto_pause_s && `pauses after ${spanText(l.auto_pause_s)} idle`,
    l.auto_stop_s && `stops after ${spanText(l.auto_stop_s)} idle`,
    l.auto_delete_s && `is deleted ${spanText(l.auto_delete_s)} after it stops`,
    l.expires_at && `expires at ${new Date(l.expires_at).toLocaleString()}`,
  ].filter(Boolean);
  return parts.length ? `It ${parts.join('; ')}.` : null;
}

const VERBS = { pause: 'Pauses', stop: 'Stops', delete: 'Is deleted' } as const;

/** What the clocks do next, with `when` (relative) filled in by the caller: "Stops {when} if left idle". */
export function nextChangeWords(box: Pick<Box, 'next_change'>): { verb: string; at: string; why: string } | null {
  const next = box.next_change;
  if (!next) return null;
  const why = next.reason === 'idle' ? 'if left idle' : next.reason === 'expired' ? 'as it expires' : 'after its stop';
  return { verb: VERBS[next.action], at: next.at, why };
}
