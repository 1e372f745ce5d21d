/** Exits of the main process within this window count towards a crash loop. */
export const CRASH_WINDOW_MS = 60_000;
/** This many exits within the window turn the box to `error`. */
export const CRASH_LIMIT = 3;

/** Counts a box's main-process exits in a sliding window. */
export class CrashLoopDetector {
  private readonly exits = new Map<string, number[]>();

  constructor(
    private readonly windowMs = CRASH_WINDOW_MS,
    private readonly limit = CRASH_LIMIT,
  ) {}

  /** Records an exit; true when it makes a crash loop. */
  record(boxId: string, at = Date.now()): { count: number; loop: boolean } {
    const recent = (this.exits.get(boxId) ?? []).filter((t) => at - t < this.windowMs);
    recent.push(at);
    this.exits.set(boxId, recent);
    return { count: recent.length, loop: recent.length >= this.limit };
  }

  /** Forgets a box's exits (a resume starts afresh; a deleted box needs none). */
  reset(boxId: string): void {
    this.exits.delete(boxId);
  }
}

/** What an exit code says about how the process ended. */
export function exitCause(exitCode: number | null, oomKilled: boolean): string {
  if (oomKilled) return 'OOM-killed: it needed more memory than config.ram_mb';
  if (exitCode === 127) return 'command not found';
  if (exitCode === 126) return 'command not executable';
  if (exitCode !== null && exitCode > 128 && exitCode < 160) return `killed by signal ${exitCode - 128}`;
  return 'it exited by itself';
}

/** The status reason of a box whose main process crash-looped or was OOM-killed. */
export function crashReason(exitCode: number | null, oomKilled: boolean, exits: number, lastOutput: string): string {
  const code = exitCode === null ? 'an unknown code' : `code ${exitCode}`;
  const how = oomKilled
    ? exitCause(exitCode, true)
    : `${exitCause(exitCode, false)}; ${exits} exits within ${CRASH_WINDOW_MS / 1000} s`;
  const output = lastOutput.trim() ? lastOutput.trim() : '(none)';
  return `main process exited with ${code} (${how}); last output: ${output}`;
}
