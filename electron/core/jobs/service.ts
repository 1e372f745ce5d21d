import type { FastifyBaseLogger } from 'fastify';
import { PassThrough, type Readable } from 'node:stream';
import { ApiError } from '../../../shared/errors';
import type { ExecRequest } from '../../../shared/schemas/exec';
import type { Job, JobOutputQuery, JobStarted } from '../../../shared/schemas/jobs';
import { refusedAsConflict, type BoxRow, type BoxesPort } from '../boxes/port';
import { EngineError, type ContainerEngine, type ExecStreams } from '../engine/container-engine';
import type { ProcessSweeper } from '../engine/process-sweeper';
import type { EventBus } from '../events/event-bus';
import { newId, now } from '../ids';
import { jobDir, readJobOutput, startJob, statJob, waitForJob, type JobState } from './in-box';
import { toJob, type JobRow, type JobStore } from './store';

export interface JobServiceDeps {
  engine: ContainerEngine;
  boxes: Pick<BoxesPort, 'find' | 'awake' | 'containerRefused' | 'byId' | 'environmentOf'>;
  store: JobStore;
  sweeper: ProcessSweeper;
  bus: EventBus;
  log: FastifyBaseLogger;
}

export const JOB_ID_PREFIX = 'job';

/** How often a follower looks for new output. */
const FOLLOW_POLL_MS = 300;

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/**
 * Background commands. A job runs in its box under a wrapper that keeps its output in a ring of
 * files there (job-scripts.ts); the core records it and looks in the box for its state and output,
 * so a job goes on while the core is away and is found again after a restart.
 */
export class JobService {
  /** Connections that tell the core when a running job's wrapper ends, by job id. */
  private readonly watchers = new Map<string, ExecStreams>();
  private closing = false;

  constructor(private readonly deps: JobServiceDeps) {}

  async start(project: string, name: string, req: ExecRequest): Promise<JobStarted> {
    if (req.stdin !== undefined || req.timeout_s !== undefined) {
      throw new ApiError('invalid_body', 'a background job takes neither stdin nor timeout_s', {
        hint: 'write input to a file first and name it in the command; stop a job with POST …/jobs/{id}/kill',
      });
    }
    const box = await this.deps.boxes.awake(project, name);
    const env = { ...(await this.deps.boxes.environmentOf(box)), ...req.env };
    const row: JobRow = {
      id: newId(JOB_ID_PREFIX),
      box_id: box.id,
      project,
      box: name,
      command: JSON.stringify(req.command),
      status: 'running',
      exit_code: null,
      started_at: now(),
      ended_at: null,
      stdout_bytes: 0,
      stderr_bytes: 0,
    };
    // Recorded first: a job the core crashed while starting is found (and seen to have ended) at the next start.
    this.deps.store.insert(row);
    try {
      const streams = await refusedAsConflict(this.deps.boxes, box, () =>
        startJob(this.deps.engine, box.container_id!, { id: row.id, command: req.command, env, cwd: req.cwd }),
      );
      this.watch(row, streams, true);
    } catch (err) {
      this.deps.store.delete(row.id);
      throw err;
    }
    this.deps.bus.emit('job.started', { project, box: name, job: toJob(row) }, project);
    return { id: row.id, status: 'running' };
  }

  async list(project: string, name: string): Promise<Job[]> {
    const box = this.deps.boxes.find(project, name);
    return Promise.all(this.deps.store.ofBox(box.id).map((row) => this.current(box, row)));
  }

  async get(project: string, name: string, id: string): Promise<Job> {
    const box = this.deps.boxes.find(project, name);
    return this.current(box, this.row(box, id));
  }

  /** The stream's bytes from `from`: what is there now, or (follow) everything until the job ends. */
  async output(
    project: string,
    name: string,
    id: string,
    query: JobOutputQuery,
    signal: AbortSignal,
  ): Promise<{ offset: number; body: Buffer | Readable }> {
    const box = await this.deps.boxes.awake(project, name);
    const row = this.row(box, id);
    const stream = query.stream ?? 'stdout';
    const first = await readJobOutput(this.deps.engine, box.container_id!, id, stream, query.from ?? 0);
    if (!query.follow) return { offset: first.offset, body: first.bytes };
    const out = new PassThrough();
    out.write(first.bytes);
    void this.follow(box, row, stream, first.offset + first.bytes.length, first.state, out, signal);
    return { offset: first.offset, body: out };
  }

  private async follow(
    box: BoxRow,
    row: JobRow,
    stream: 'stdout' | 'stderr',
    from: number,
    state: JobState,
    out: PassThrough,
    signal: AbortSignal,
  ): Promise<void> {
    let pos = from;
    let ended = !state.alive || state.exit !== null;
    try {
      while (!ended && !signal.aborted && !this.closing && this.deps.store.get(box.id, row.id)?.status === 'running') {
        await delay(FOLLOW_POLL_MS);
        const next = await readJobOutput(this.deps.engine, box.container_id!, row.id, stream, pos);
        // Output written after the wrapper's last look is read once more after it has ended.
        ended = !next.state.alive || next.state.exit !== null;
        if (next.bytes.length > 0 && !out.write(next.bytes)) await new Promise((r) => out.once('drain', r));
        pos = next.offset + next.bytes.length;
      }
    } catch (err) {
      this.deps.log.warn({ err, job: row.id }, 'following a job stopped');
    } finally {
      out.end();
    }
  }

  async kill(project: string, name: string, id: string): Promise<Job> {
    const box = this.deps.boxes.find(project, name);
    const row = this.row(box, id);
    if (row.status !== 'running') return toJob(row);
    if (box.status === 'running') {
      // Recorded first, so the wrapper's own exit code (137) does not make it an ordinary exit.
      const state = await statJob(this.deps.engine, box.container_id!, id);
      if (state.exit === null) this.end(row, state, 'killed');
      await this.deps.sweeper.killAll(box.container_id!, id);
      const after = await statJob(this.deps.engine, box.container_id!, id);
      this.deps.store.recordBytes(id, after.stdoutBytes, after.stderrBytes);
      return toJob(this.row(box, id));
    }
    return this.current(box, row);
  }

  async delete(project: string, name: string, id: string): Promise<void> {
    const box = this.deps.boxes.find(project, name);
    const row = this.row(box, id);
    if (row.status === 'running' && box.status === 'running') await this.kill(project, name, id);
    if (box.container_id) {
      await this.deps.engine.removePath(box.container_id, jobDir(id)).catch((err: unknown) => {
        if (!(err instanceof EngineError && err.kind === 'not_found')) throw err;
      });
    }
    this.deps.store.delete(id);
    this.watchers.get(id)?.close();
    this.deps.bus.emit('job.deleted', { project, box: name, job: toJob(row) }, project);
  }

  /** At engine up: forgets the jobs of boxes that are gone, and watches those still running. */
  async watchRunning(): Promise<void> {
    for (const row of this.deps.store.all()) {
      if (!this.deps.boxes.byId(row.box_id)) this.deps.store.delete(row.id);
    }
    for (const row of this.deps.store.running()) {
      const box = this.deps.boxes.byId(row.box_id);
      if (!box || this.watchers.has(row.id)) continue;
      if (box.status !== 'running') {
        await this.current(box, row);
        continue;
      }
      const streams = await waitForJob(this.deps.engine, box.container_id!, row.id).catch((err: unknown) => {
        this.deps.log.warn({ err, job: row.id }, 'could not watch a job');
        return null;
      });
      if (streams) this.watch(row, streams, false);
    }
  }

  /** When the streams end the job's wrapper has: its final state is recorded. */
  private watch(row: JobRow, streams: ExecStreams, ownWrapper: boolean): void {
    this.watchers.set(row.id, streams);
    let done = false;
    const ended = () => {
      if (done || this.closing) return;
      done = true;
      this.watchers.delete(row.id);
      const box = this.deps.boxes.byId(row.box_id);
      const current = this.deps.store.get(row.box_id, row.id);
      if (!box || !current) return;
      void this.current(box, current, ownWrapper).catch((err: unknown) =>
        this.deps.log.warn({ err, job: row.id }, 'could not read how a job ended'),
      );
    };
    for (const s of [streams.stdout, streams.stderr]) {
      s.on('end', ended).on('close', ended).on('error', ended);
      s.resume();
    }
  }

  /** The job as it is now: looked up in its box while it runs, recorded once it has ended. */
  private async current(box: BoxRow, row: JobRow, wrapperEnded = false): Promise<Job> {
    if (row.status !== 'running') return toJob(row);
    // A stopped box's processes are gone; whether the job exited first is read once the box runs again.
    if (['stopping', 'stopped', 'error'].includes(box.status)) return { ...toJob(row), status: 'killed' };
    if (box.status !== 'running' || !box.container_id) return toJob(row);
    const state = await statJob(this.deps.engine, box.container_id, row.id);
    if (state.exit) return this.end(row, state, 'exited');
    if (!state.alive || wrapperEnded) return this.end(row, state, 'killed');
    return { ...toJob(row), stdout_bytes: state.stdoutBytes, stderr_bytes: state.stderrBytes };
  }

  private end(row: JobRow, state: JobState, status: 'exited' | 'killed'): Job {
    this.deps.store.update(row.id, {
      status,
      exit_code: status === 'exited' ? state.exit!.code : null,
      ended_at: status === 'exited' ? state.exit!.endedAt : now(),
      stdout_bytes: state.stdoutBytes,
      stderr_bytes: state.stderrBytes,
    });
    const ended = this.deps.store.get(row.box_id, row.id)!;
    if (ended.status !== row.status) {
      this.deps.bus.emit('job.ended', { project: row.project, box: row.box, job: toJob(ended) }, row.project);
    }
    return toJob(ended);
  }

  private row(box: BoxRow, id: string): JobRow {
    const row = this.deps.store.get(box.id, id);
    if (!row) {
      throw new ApiError('not_found', `box "${box.name}" has no job "${id}"`, {
        hint: `list its jobs: GET /v1/projects/${box.project}/boxes/${box.name}/jobs`,
      });
    }
    return row;
  }

  /** The jobs go on in their boxes; only the core's connections to them close. */
  dispose(): void {
    this.closing = true;
    for (const streams of this.watchers.values()) streams.close();
    this.watchers.clear();
  }
}
