import type { Db } from './database';

/**
 * One table whose rows are keyed by `id`: the statements every store repeats (add, get, update,
 * delete). A store extends it for its main table, or holds one per further table, and writes only
 * its own queries. Columns are the row's keys, always bound as parameters, never spliced in.
 */
export class Table<Row extends { id: string }, Patch extends Partial<Row> = Partial<Row>> {
  constructor(
    protected readonly db: Db,
    readonly table: string,
  ) {}

  /** Adds a row; a conflict with one there throws. */
  insertRow(row: Row): void {
    this.db.prepare(this.insertSql(row)).run(row);
  }

  /**
   * Adds a row unless it would take a unique key another row holds (`conflict`: the columns of
   * that key; any, when not given). false when nothing was written.
   */
  insertUnlessTaken(row: Row, conflict?: string): boolean {
    const target = conflict ? `(${conflict})` : '';
    return this.db.prepare(`${this.insertSql(row)} ON CONFLICT${target} DO NOTHING`).run(row).changes > 0;
  }

  private insertSql(row: Row): string {
    const cols = Object.keys(row);
    return `INSERT INTO ${this.table} (${cols.join(', ')}) VALUES (${cols.map((c) => '@' + c).join(', ')})`;
  }

  getById(id: string): Row | undefined {
    return this.db.prepare(`SELECT * FROM ${this.table} WHERE id = ?`).get(id) as Row | undefined;
  }

  all(): Row[] {
    return this.select('');
  }

  /** The rows `clause` picks: what follows `SELECT * FROM table` (WHERE, ORDER BY…), with `?` for `params`. */
  select(clause: string, ...params: unknown[]): Row[] {
    return this.db.prepare(`SELECT * FROM ${this.table} ${clause}`).all(...params) as Row[];
  }

  /** The first row `clause` picks, if any. */
  selectOne(clause: string, ...params: unknown[]): Row | undefined {
    return this.db.prepare(`SELECT * FROM ${this.table} ${clause}`).get(...params) as Row | undefined;
  }

  /** Sets the patch's columns (and `updated_at`, when `at` is given); answers the row as it is now. */
  update(id: string, patch: Patch, at?: string): Row {
    const values: Record<string, unknown> = at === undefined ? { ...patch } : { ...patch, updated_at: at };
    const cols = Object.keys(values);
    this.db
      .prepare(`UPDATE ${this.table} SET ${cols.map((c) => `${c} = @${c}`).join(', ')} WHERE id = @id`)
      .run({ ...values, id });
    return this.getById(id)!;
  }

  delete(id: string): void {
    this.db.prepare(`DELETE FROM ${this.table} WHERE id = ?`).run(id);
  }
}

/** A table of a project's named records (boxes, services, volumes): a name is unique in its project. */
export class ProjectTable<
  Row extends { id: string; project: string; name: string },
  Patch extends Partial<Row> = Partial<Row>,
> extends Table<Row, Patch> {
  get(project: string, name: string): Row | undefined {
    return this.selectOne('WHERE project = ? AND name = ?', project, name);
  }
}
