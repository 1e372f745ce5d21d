/** Nearest-rank percentile of a sample (p in 0..100). */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1]!;
}

export interface Summary {
  n: number;
  p50: number;
  p95: number;
  min: number;
  max: number;
  samples: number[];
}

export function summarize(samples: number[]): Summary {
  return {
    n: samples.length,
    p50: percentile(samples, 50),
    p95: percentile(samples, 95),
    min: samples.length ? Math.min(...samples) : NaN,
    max: samples.length ? Math.max(...samples) : NaN,
    samples: samples.map((v) => Math.round(v * 100) / 100),
  };
}

/** Milliseconds since an origin taken with `performance.now()`. */
export async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const start = performance.now();
  const value = await fn();
  return { ms: performance.now() - start, value };
}

/**
 * Runs `ours` and `raw` `n` times each, alternating which goes first so that
 * neither side always pays for a cold cache or a warm one.
 */
export async function alternate(
  n: number,
  ours: (i: number) => Promise<number>,
  raw: (i: number) => Promise<number>,
  onRound?: (i: number) => void,
): Promise<{ ours: number[]; raw: number[] }> {
  const out = { ours: [] as number[], raw: [] as number[] };
  for (let i = 0; i < n; i++) {
    if (i % 2 === 0) {
      out.ours.push(await ours(i));
      out.raw.push(await raw(i));
    } else {
      out.raw.push(await raw(i));
      out.ours.push(await ours(i));
    }
    onRound?.(i);
  }
  return out;
}

export function progress(message: string): void {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}
