import type { BuildLogLine } from './schemas/builds';

/**
 * Follows a build's log and counts what the engine took from its cache: its steps, the cached
 * ones, and the first that ran again (FROM steps neither run nor come from the cache). The CLI's
 * `box base build` and the core's `box up` end a build with its `summary`.
 */
export class BuildCacheTally {
  private steps = 0;
  private cached = 0;
  private firstRun: string | null = null;
  private step: { label: string; fromCache: boolean } | null = null;

  /** Counts one line of the log. */
  see(line: BuildLogLine): void {
    if (line.step) {
      this.closeStep();
      this.step = { label: line.step, fromCache: false };
      this.steps++;
    } else if (line.stream && /^\s*---> Using cache/.test(line.stream) && this.step && !this.step.fromCache) {
      this.step.fromCache = true;
      this.cached++;
    }
  }

  /** "; 3 of 4 steps from the cache, run again from step 4/4 RUN make" (empty for a build with no steps). */
  summary(): string {
    this.closeStep();
    if (!this.steps) return '';
    return this.firstRun
      ? `; ${this.cached} of ${this.steps} steps from the cache, run again from step ${this.firstRun}`
      : `; ${this.cached} of ${this.steps} steps from the cache, nothing changed`;
  }

  private closeStep(): void {
    const step = this.step;
    if (step && !step.fromCache && !/^\S+ FROM /i.test(step.label)) this.firstRun ??= step.label;
  }
}
