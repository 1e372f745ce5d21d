import { ApiError } from '../../../shared/errors';
import type { BoxStatus } from '../../../shared/schemas/box';

export type BoxOperation =
  'stop' | 'resume' | 'pause' | 'wake' | 'delete' | 'update' | 'exec' | 'logs' | 'stats' | 'files';

/** Statuses in which a box is mid-transition: every operation on it is refused. */
const TRANSIENT: BoxStatus[] = ['creating', 'stopping', 'resuming', 'deleting'];

/**
 * From `error`, stop and resume recover a box whose container still exists
 * (a crash loop, a pause from outside): resume starts it afresh, stop leaves it stopped.
 */
const ALLOWED: Record<BoxOperation, BoxStatus[]> = {
  stop: ['running', 'paused', 'stopped', 'error'],
  resume: ['stopped', 'running', 'paused', 'error'],
  // A paused box is frozen, not gone: pause again is idempotent, and anything that needs it running wakes it.
  pause: ['running', 'paused'],
  wake: ['running', 'paused'],
  delete: ['running', 'paused', 'stopped', 'error'],
  update: ['running', 'paused', 'stopped', 'error'],
  exec: ['running'],
  logs: ['running', 'paused', 'stopped', 'error'],
  stats: ['running', 'paused'],
  files: ['running', 'stopped', 'error'],
};

export interface BoxFacts {
  name: string;
  status: BoxStatus;
  /** Whether the box still has its container (an `error` box may have lost it). */
  hasContainer: boolean;
}

/** What to do instead; names only an operation the box's status allows. */
function hintFor(box: BoxFacts): string {
  if (TRANSIENT.includes(box.status))
    return `wait until it is no longer ${box.status} (GET the box or watch /v1/events), then try again`;
  if (box.status === 'error') {
    return box.hasContainer
      ? 'its status_reason says what went wrong; resume it to start it again, or delete it'
      : 'its container is gone: delete the box and create it again';
  }
  if (box.status === 'stopped') return 'resume it first (POST …/resume)';
  if (box.status === 'paused') return 'resume it (POST …/resume) to wake it';
  return `it is ${box.status}`;
}

/** Throws 409 when `op` is not allowed for the box, with a hint that names what is. */
export function assertTransition(box: BoxFacts, op: BoxOperation): void {
  const lostContainer =
    box.status === 'error' &&
    !box.hasContainer &&
    (op === 'stop' || op === 'resume' || op === 'logs' || op === 'files');
  if (ALLOWED[op].includes(box.status) && !lostContainer) return;
  const detail = TRANSIENT.includes(box.status)
    ? `box "${box.name}" is ${box.status}`
    : `cannot ${op} box "${box.name}" while it is ${box.status}`;
  const hint = hintFor(box);
  throw new ApiError('conflict', `${detail}; ${hint}`, { hint });
}
