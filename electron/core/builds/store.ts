import type { BaseBuild, BuildLogLine } from '../../../shared/schemas/builds';
import type { Db } from '../db/database';

/** Lines of a build's log kept: past it, the oldest go (the end of a log says why it failed). */
export const LOG_LINES_KEPT = 2000;
/** A log line's text is cut at this many characters. */
export const LOG_LINE_CHARS = 8192;
/** Builds kept per base (with their logs); older ones go when a new one starts. */
export const BUILDS_KEPT = 20;

type BuildRow = Omit<BaseBuild, 'error'> & { error: string | null };

function toBuild(row: BuildRow): BaseBuild {
  const { error, ...rest } = row;
  return error === null ? rest : { ...rest, error };
}

/** Build records and their logs (tables base_builds, base_build_log). */
export class BuildStore {
  constructor(private readonly db: Db) {}

  /** The new build and the pruning of the oldest past BUILDS_KEPT, in one transaction. */
  insert(build: BaseBuild): void {
    this.db.transaction(() => {
      this.db
        .prepare(
          'INSERT INTO base_builds (id, base, status, step, error, image, created_at, ended_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
        )
        .run(build.id, build.base, build.status, build.step, build.error ?? null, build.image, build.created_at, null);
      const old = this.db
        .prepare('SELECT id FROM base_builds WHERE base = ? ORDER BY created_at DESC LIMIT -1 OFFSET ?')
        .pluck()
        .all(build.base, BUILDS_KEPT) as string[];
      for (const id of old) this.remove(id);
    })();
  }

  get(base: string, id: string): BaseBuild | undefined {
    const row = this.db.prepare('SELECT * FROM base_builds WHERE id = ? AND base = ?').get(id, base) as
      BuildRow | undefined;
    return row && toBuild(row);
  }

  list(base: string): BaseBuild[] {
    const rows = this.db
      .prepare('SELECT * FROM base_builds WHERE base = ? ORDER BY created_at DESC')
      .all(base) as BuildRow[];
    return rows.map(toBuild);
  }

  update(id: string, change: Partial<Pick<BaseBuild, 'status' | 'step' | 'error' | 'image' | 'ended_at'>>): void {
    const keys = Object.keys(change) as (keyof typeof change)[];
    if (!keys.length) return;
    this.db
      .prepare(`UPDATE base_builds SET ${keys.map((k) => `${k} = ?`).join(', ')} WHERE id = ?`)
      .run(...keys.map((k) => change[k] ?? null), id);
  }

  /** Builds a core that stopped mid-way left as `building`: they failed. */
  interrupted(): BaseBuild[] {
    return (this.db.prepare("SELECT * FROM base_builds WHERE status = 'building'").all() as BuildRow[]).map(toBuild);
  }

  /** Appends log lines in one transaction (each text cut to LOG_LINE_CHARS); past LOG_LINES_KEPT the oldest go. */
  appendAll(id: string, lines: readonly { seq: number; line: BuildLogLine }[]): void {
    if (!lines.length) return;
    const insert = this.db.prepare('INSERT INTO base_build_log (build_id, seq, line) VALUES (?, ?, ?)');
    this.db.transaction(() => {
      for (const { seq, line } of lines) {
        const cut = Object.fromEntries(
          Object.entries(line).map(([k, v]) => [k, (v as string).slice(0, LOG_LINE_CHARS)]),
        );
        insert.run(id, seq, JSON.stringify(cut));
      }
      const last = lines.at(-1)!.seq;
      if (last > LOG_LINES_KEPT)
        this.db.prepare('DELETE FROM base_build_log WHERE build_id = ? AND seq <= ?').run(id, last - LOG_LINES_KEPT);
    })();
  }

  /** The kept lines, in order, with their numbers. */
  log(id: string): { seq: number; line: string }[] {
    return this.db.prepare('SELECT seq, line FROM base_build_log WHERE build_id = ? ORDER BY seq').all(id) as {
      seq: number;
      line: string;
    }[];
  }

  /** A build and its log; called inside a transaction. */
  private remove(id: string): void {
    this.db.prepare('DELETE FROM base_build_log WHERE build_id = ?').run(id);
    this.db.prepare('DELETE FROM base_builds WHERE id = ?').run(id);
  }
}
