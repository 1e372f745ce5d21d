import fs from 'node:fs';
import path from 'node:path';
import { summarize, type Summary } from './stats';

export type Verdict = 'PASS' | 'MISS' | '—';

export interface ScenarioResult {
  name: string;
  unit: string;
  n: number;
  ours: Summary | null;
  raw: Summary | null;
  /** What `ratio` divides, e.g. "ours/raw p50". */
  ratioKind: string;
  ratio: number | null;
  target: string;
  verdict: Verdict;
  notes: string[];
  /** Scenario-specific figures (RSS samples and the like). */
  extra?: Record<string, unknown>;
  /** Overrides for the table cells when p50/p95 do not fit the scenario. */
  cells?: { ours?: string; raw?: string };
}

export interface BenchReport {
  started_at: string;
  finished_at: string;
  duration_s: number;
  environment: Record<string, unknown>;
  parameters: Record<string, unknown>;
  scenarios: ScenarioResult[];
  error?: string;
}

function fmt(v: number | undefined | null, digits = 1): string {
  return v === undefined || v === null || Number.isNaN(v) ? '—' : v.toFixed(digits);
}

function pair(s: Summary | null): string {
  return s ? `${fmt(s.p50)} / ${fmt(s.p95)}` : '—';
}

export function renderTable(scenarios: ScenarioResult[]): string {
  const head = ['scenario', 'n', 'unit', 'ours p50 / p95', 'raw p50 / p95', 'ratio', 'target', 'result'];
  const rows = scenarios.map((s) => [
    s.name,
    String(s.n),
    s.unit,
    s.cells?.ours ?? pair(s.ours),
    s.cells?.raw ?? pair(s.raw),
    s.ratio === null ? '—' : `${fmt(s.ratio, 2)} (${s.ratioKind})`,
    s.target,
    s.verdict,
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join(' | ')
      .trimEnd();
  const out = [line(head), widths.map((w) => '-'.repeat(w)).join('-|-'), ...rows.map(line)];
  const notes = scenarios.flatMap((s) => s.notes.map((n) => `  ${s.name}: ${n}`));
  if (notes.length) out.push('', 'notes:', ...notes);
  return out.join('\n');
}

/** Writes `<ISO-timestamp>.json` and `latest.json`; returns the timestamped path. */
export function writeReport(dir: string, report: BenchReport): string {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${report.started_at.replace(/:/g, '-')}.json`);
  const text = `${JSON.stringify(report, null, 2)}\n`;
  fs.writeFileSync(file, text);
  fs.writeFileSync(path.join(dir, 'latest.json'), text);
  return file;
}

/**
 * Ours against the raw engine, in ms: the p50 ratio against a ceiling (null:
 * reported only). The first note gets the p95 ratio in front.
 */
export function ratioResult(
  name: string,
  runs: { ours: number[]; raw: number[] },
  target: number | null,
  notes: [string, ...string[]],
): ScenarioResult {
  const ours = summarize(runs.ours);
  const raw = summarize(runs.raw);
  const ratio = ours.p50 / raw.p50;
  const [first, ...rest] = notes;
  return {
    name,
    unit: 'ms',
    n: ours.n,
    ours,
    raw,
    ratioKind: 'ours/raw p50',
    ratio,
    target: target === null ? '—' : `≤ ${target}`,
    verdict: target === null ? '—' : ratio <= target ? 'PASS' : 'MISS',
    notes: [`p95 ratio ${(ours.p95 / raw.p95).toFixed(2)}; ${first}`, ...rest],
  };
}

/** Throughputs in MiB/s (more is better): ours against raw by their medians, against a floor. */
export function rateResult(
  name: string,
  runs: { ours: number[]; raw: number[] },
  ratioKind: string,
  floor: number,
  notes: string[],
): ScenarioResult {
  const ours = summarize(runs.ours);
  const raw = summarize(runs.raw);
  const ratio = ours.p50 / raw.p50;
  return {
    ...{ name, unit: 'MiB/s', n: ours.n, ours, raw, ratioKind, ratio, notes },
    target: `≥ ${floor}`,
    verdict: ratio >= floor ? 'PASS' : 'MISS',
    cells: spreadCells(ours, raw),
  };
}

/** Ours alone, in ms, against a p95 ceiling. */
export function p95Result(name: string, ours: Summary, targetMs: number, note: string): ScenarioResult {
  return {
    name,
    unit: 'ms',
    n: ours.n,
    ours,
    raw: null,
    ratioKind: '',
    ratio: null,
    target: `p95 ≤ ${targetMs} ms`,
    verdict: ours.p95 <= targetMs ? 'PASS' : 'MISS',
    notes: [note],
  };
}

/** Table cells for a few runs of a rate: median (min–max), whole numbers. */
export function spreadCells(ours: Summary, raw: Summary): { ours: string; raw: string } {
  const cell = (s: Summary) => `${s.p50.toFixed(0)} (${s.min.toFixed(0)}–${s.max.toFixed(0)})`;
  return { ours: cell(ours), raw: cell(raw) };
}
