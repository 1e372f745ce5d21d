import type { Job, JobStatus } from '../../../shared/schemas/jobs';
import type { Db } from '../db/database';

export interface JobRow {
  id: string;
  box_id: string;
  project: string;
  box: string;
  /** JSON of the argv. */
  command: string;
  status: JobStatus;
  exit_code: number | null;
  started_at: string;
  ended_at: string | null;
  stdout_bytes: number;
  stderr_bytes: number;
}

export function toJob(row: JobRow): Job {
  return {
    id: row.id,
    command: JSON.parse(row.command) as string[],
    status: row.status,
    exit_code: row.exit_code,
    started_at: row.started_at,
    ended_at: row.ended_at,
    stdout_bytes: row.stdout_bytes,
    stderr_bytes: row.stderr_bytes,
  };
}

/** The jobs table: a row per job while its box lives. */
export class JobStore {
  constructor(private readonly db: Db) {}

  insert(row: JobRow): void {
    this.db
      .prepare(
        `INSERT INTO jobs (id, box_id, project, box, command, status, exit_code, started_at, ended_at, stdout_bytes, stderr_bytes)
         VALUES (@id, @box_id, @project, @box, @command, @status, @exit_code, @started_at, @ended_at, @stdout_bytes, @stderr_bytes)`,
      )
      .run(row);
  }

  get(boxId: string, id: string): JobRow | undefined {
    return this.db.prepare('SELECT * FROM jobs WHERE box_id = ? AND id = ?').get(boxId, id) as JobRow | undefined;
  }

  ofBox(boxId: string): JobRow[] {
    return this.db.prepare('SELECT * FROM jobs WHERE box_id = ? ORDER BY started_at, id').all(boxId) as JobRow[];
  }

  running(): JobRow[] {
    return this.db.prepare("SELECT * FROM jobs WHERE status = 'running' ORDER BY started_at").all() as JobRow[];
  }

  /** Records what a look in the box found; an ended job's row no longer changes. */
  update(
    id: string,
    change: Pick<JobRow, 'status' | 'exit_code' | 'ended_at' | 'stdout_bytes' | 'stderr_bytes'>,
  ): void {
    this.db
      .prepare(
        `UPDATE jobs SET status = @status, exit_code = @exit_code, ended_at = @ended_at,
           stdout_bytes = @stdout_bytes, stderr_bytes = @stderr_bytes
         WHERE id = @id AND status = 'running'`,
      )
      .run({ id, ...change });
  }

  /** What a killed job wrote before it went. */
  recordBytes(id: string, stdoutBytes: number, stderrBytes: number): void {
    this.db
      .prepare('UPDATE jobs SET stdout_bytes = ?, stderr_bytes = ? WHERE id = ?')
      .run(stdoutBytes, stderrBytes, id);
  }

  delete(id: string): void {
    this.db.prepare('DELETE FROM jobs WHERE id = ?').run(id);
  }

  all(): JobRow[] {
    return this.db.prepare('SELECT * FROM jobs').all() as JobRow[];
  }
}
