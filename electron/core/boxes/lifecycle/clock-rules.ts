import { ApiError } from '../../../../shared/errors';
import {
  NO_LIFECYCLE,
  type Lifecycle,
  type LifecycleInput,
  type NextChange,
} from '../../../../shared/schemas/box-lifecycle';
import type { BoxStatus } from '../../../../shared/schemas/box';

/** What the clocks read of a box. */
export interface ClockFacts {
  status: BoxStatus;
  lifecycle: string | null;
  /** The last use (ms since epoch): an API call on the box or a proxy request to it. */
  lastUsedMs: number;
  /** When the box took its status (ms): a stopped box's auto_delete counts from it. */
  statusSinceMs: number;
  /** An open console, exec socket or proxied WebSocket: the box is in use now. */
  inUse: boolean;
}

export type Change = Exclude<NextChange, null>;

/** The box's clocks as stored (a row from before them: none). */
export function parseLifecycle(json: string | null): Lifecycle {
  return json ? { ...NO_LIFECYCLE, ...(JSON.parse(json) as Partial<Lifecycle>) } : { ...NO_LIFECYCLE };
}

/** The stored clocks with a body's given fields over them; null when none is set (stored as NULL). */
export function mergeLifecycle(current: Lifecycle, input: LifecycleInput | undefined, nowMs: number): Lifecycle | null {
  const next = { ...current, ...input };
  if (input?.expires_at && Date.parse(input.expires_at) <= nowMs)
    throw new ApiError('invalid_body', `lifecycle.expires_at ${input.expires_at} is not in the future`, {
      hint: 'give a time to come, or null for never',
    });
  return Object.values(next).some((v) => v !== null) ? next : null;
}

const at = (ms: number) => new Date(ms).toISOString();

/**
 * The clocks' next change of the box, if any, and when: expiry first, then (stopped) its
 * auto_delete, then (running or paused) the earlier of idle pause and idle stop. A box mid
 * transition or in error is left alone (expiry aside); one in use now has no idle deadline.
 */
export function nextChange(f: ClockFacts): Change | null {
  const life = parseLifecycle(f.lifecycle);
  const changes: Change[] = [];
  if (life.expires_at) changes.push({ action: 'delete', reason: 'expired', at: life.expires_at });
  if (f.status === 'stopped' && life.auto_delete_s)
    changes.push({ action: 'delete', reason: 'auto_delete', at: at(f.statusSinceMs + life.auto_delete_s * 1000) });
  if (!f.inUse && (f.status === 'running' || f.status === 'paused')) {
    if (life.auto_stop_s)
      changes.push({ action: 'stop', reason: 'idle', at: at(f.lastUsedMs + life.auto_stop_s * 1000) });
    if (life.auto_pause_s && f.status === 'running')
      changes.push({ action: 'pause', reason: 'idle', at: at(f.lastUsedMs + life.auto_pause_s * 1000) });
  }
  // The earliest wins; at a tie the stronger change (delete, then stop) makes the weaker moot.
  changes.sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
  return changes[0] ?? null;
}

/** The status reason an automatic change leaves on the box. */
export function changeReason(change: Change, life: Lifecycle, atIso: string): string {
  if (change.action === 'pause')
    return `paused by its lifecycle after ${life.auto_pause_s} s idle (auto_pause_s) at ${atIso}; the next use wakes it`;
  return `stopped by its lifecycle after ${life.auto_stop_s} s idle (auto_stop_s) at ${atIso}; resume it to start it again`;
}
