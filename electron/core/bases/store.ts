import type { Db } from '../db/database';

export interface BaseRow {
  name: string;
  image: string;
  created_at: string;
}

export class BaseStore {
  constructor(private readonly db: Db) {}

  get(name: string): BaseRow | undefined {
    return this.db.prepare('SELECT * FROM bases WHERE name = ?').get(name) as BaseRow | undefined;
  }

  list(): BaseRow[] {
    return this.db.prepare('SELECT * FROM bases ORDER BY name').all() as BaseRow[];
  }

  /** false when the name is taken */
  insert(row: BaseRow): boolean {
    return this.db.prepare('INSERT INTO bases (name, image, created_at) VALUES (?, ?, ?) ON CONFLICT(name) DO NOTHING').run(row.name, row.image, row.created_at).changes > 0;
  }
}
