import { api, type CoreProcess } from '../../test-support/core-process';

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

async function expectStatus(res: Response, status: number, what: string): Promise<Response> {
  if (res.status !== status)
    throw new Error(`${what}: expected HTTP ${status}, got ${res.status}: ${await res.text()}`);
  return res;
}

export async function createBox(ctx: BenchContext, name: string): Promise<void> {
  const res = await api(ctx.core, 'POST', `/v1/projects/${ctx.project}/boxes`, { name });
  ctx.boxes.add(name);
  await expectStatus(res, 201, `create box ${name}`);
  await res.arrayBuffer();
}

export async function deleteBox(ctx: BenchContext, name: string): Promise<void> {
  const res = await api(ctx.core, 'DELETE', `/v1/projects/${ctx.project}/boxes/${name}`);
  await expectStatus(res, 204, `delete box ${name}`);
  await res.arrayBuffer();
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
  await expectStatus(res, 200, `exec in ${name}`);
  return (await res.json()) as ExecAnswer;
}
