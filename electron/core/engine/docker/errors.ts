import { EngineError } from '../container-engine';

export interface DockerErrorLike {
  statusCode?: number;
  code?: string;
  message?: string;
  json?: { message?: string } | null;
}

/** Go's answer when a host interface goes while it reads the interfaces' addresses (Podman's network create). */
export const VANISHED_INTERFACE = /no such network interface/i;

/** Classifies a dockerode failure by the engine's own message, not by guessing from the status code. */
export function toEngineError(err: unknown): EngineError {
  if (err instanceof EngineError) return err;
  const e = (err ?? {}) as DockerErrorLike;
  const message = (e.json?.message ?? e.message ?? String(err)).trim();
  if (
    e.code &&
    ['ECONNREFUSED', 'ENOENT', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EACCES', 'EHOSTUNREACH'].includes(e.code)
  ) {
    return new EngineError('unavailable', `cannot reach the container engine (${e.code})`);
  }
  if (/timeout/i.test(message) && !e.statusCode)
    return new EngineError('unavailable', `the container engine did not answer in time`);
  // Podman runs a container's init (Boxdesk's containers have one) with catatonit, a package of its own.
  if (/container-init binary not found/i.test(message))
    return new EngineError(
      'failed',
      `${message}: Podman needs catatonit, its init for containers; install it (Debian and Ubuntu: apt install catatonit; Fedora: dnf install catatonit), then try again`,
    );
  // An interface of the host that went while the engine listed them: not a missing network.
  if (VANISHED_INTERFACE.test(message))
    return new EngineError(
      'failed',
      `${message}: the host's network interfaces changed while the engine read them; try again`,
    );
  // Podman says a missing image is "image not known".
  if (/no such (container|image|exec|volume|network)|not found|image not known/i.test(message))
    return new EngineError('not_found', message);
  // A paused, stopped or restarting container refuses exec: the box's state, not a bug.
  if (/conflict|already in use|is in use|is already|is paused|is not running|is restarting/i.test(message))
    return new EngineError('conflict', message);
  if (e.statusCode === 400 || /invalid|range of cpus|minimum memory/i.test(message))
    return new EngineError('invalid', message);
  return new EngineError('failed', message);
}

/**
 * Runs an engine call, and again (after 1, 2, 3… × `stepMs`) while it fails with a message that
 * `transient` matches, `attempts` times at most; `exhausted` makes the error after the last one.
 */
export async function retriedWhile<T>(
  fn: () => Promise<T>,
  transient: RegExp,
  {
    attempts,
    stepMs,
    exhausted = (e) => e,
  }: { attempts: number; stepMs: number; exhausted?: (e: EngineError) => Error },
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      const e = toEngineError(err);
      if (!transient.test(e.message)) throw e;
      if (attempt >= attempts) throw exhausted(e);
      await new Promise((r) => setTimeout(r, stepMs * attempt));
    }
  }
}

/** Runs an engine call, turning its failure into an EngineError. */
export async function call<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw toEngineError(err);
  }
}

/** Like `call`, but "not found" becomes null. */
export async function orNull<T>(fn: () => Promise<T>): Promise<T | null> {
  try {
    return await fn();
  } catch (err) {
    const e = toEngineError(err);
    if (e.kind === 'not_found') return null;
    throw e;
  }
}

/** Docker's label filter: every key=value must match. */
export function labelFilter(labels: Record<string, string>): string[] {
  return Object.entries(labels).map(([k, v]) => `${k}=${v}`);
}

/**
 * Whether `have` carries every key=value of `want`. Podman 4.3 reads several label filters as
 * "any of them" for volumes and events and matches no image at all with more than one: its
 * answers are filtered again here (Docker's need not be, and pass unchanged).
 */
export function hasLabels(have: Record<string, string> | null | undefined, want: Record<string, string>): boolean {
  return Object.entries(want).every(([k, v]) => have?.[k] === v);
}
