import fs from 'node:fs';
import { api, type CoreProcess } from '../../test-support/core-process';
import type { ScenarioResult } from '../report';

export interface BenchContext {
  core: CoreProcess;
  /** A project of its own per run, so cleanup can find every box by label. */
  project: string;
  image: string;
  n: number;
  floodSeconds: number;
  graceSeconds: number;
  /** Raw containers made so far and not yet removed, for cleanup on failure. */
  rawIds: Set<string>;
  /** Boxes made so far and not yet deleted. */
  boxes: Set<string>;
}

export async function createBox(ctx: BenchContext, name: string, body: Record<string, unknown> = {}): Promise<void> {
  const res = await api(ctx.core, 'POST', `/v1/projects/${ctx.project}/boxes`, { name, ...body });
  ctx.boxes.add(name);
  await expectJson(res, 201, `create box ${name}`);
}

export async function deleteBox(ctx: BenchContext, name: string): Promise<void> {
  const res = await api(ctx.core, 'DELETE', `/v1/projects/${ctx.project}/boxes/${name}`);
  await expectJson(res, 204, `delete box ${name}`);
  ctx.boxes.delete(name);
}

export interface ExecAnswer {
  exit_code: number;
  stdout: string;
  stderr: string;
  timed_out: boolean;
}

export async function execInBox(
  ctx: BenchContext,
  name: string,
  command: string[],
  timeout_s?: number,
): Promise<ExecAnswer> {
  const res = await api(ctx.core, 'POST', `/v1/projects/${ctx.project}/boxes/${name}/exec`, {
    command,
    ...(timeout_s ? { timeout_s } : {}),
  });
  return expectJson<ExecAnswer>(res, 200, `exec in ${name}`);
}

/** One scenario of `npm run bench`; scenarios/index.ts lists them, one line each, in the order they run. */
export interface BenchScenario {
  /** What the table and BENCH_ONLY match. */
  name: string;
  run(ctx: BenchContext): Promise<ScenarioResult | ScenarioResult[]>;
}

/** A positive whole number from the environment (BENCH_N and the like), else `fallback`. */
export function positiveIntFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive whole number, got "${raw}"`);
  return n;
}

/** The JSON body of an answer with the expected status (undefined when it is empty). */
export async function expectJson<T>(res: Response, status: number, what: string): Promise<T> {
  const text = await res.text();
  if (res.status !== status) throw new Error(`${what}: expected HTTP ${status}, got ${res.status}: ${text}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

/** Resident memory of a process, in MiB (Linux). */
export function rssMiB(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)\s+kB/.exec(status)?.[1]) / 1024;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
