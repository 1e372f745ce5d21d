/**
 * A token bucket per API token: `ratePerSecond` sustained, bursts up to
 * `burst`. Local agents fire bursts of exec calls, so the burst is generous.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly ratePerSecond: number,
    private readonly burst: number,
    private readonly clock: () => number = () => Date.now(),
  ) {}

  get enabled(): boolean {
    return this.ratePerSecond > 0;
  }

  /** 0 when the request may go ahead, else the seconds to wait before retrying. */
  take(key: string): number {
    if (!this.enabled) return 0;
    const t = this.clock();
    const bucket = this.buckets.get(key) ?? { tokens: this.burst, at: t };
    bucket.tokens = Math.min(this.burst, bucket.tokens + ((t - bucket.at) / 1000) * this.ratePerSecond);
    bucket.at = t;
    this.buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / this.ratePerSecond));
  }
}
