import type { Db } from '../db/database';

export interface BaseRow {
  name: string;
  image: string;
  created_at: string;
  /** 1 when the core made the image for this base (from a box, or imported) and removes it with the base. */
  owns_image?: number;
  /** The snapshot the base's root descends from, if any. */
  from_snapshot?: string | null;
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
    return (
      this.db
        .prepare(
          'INSERT INTO bases (name, image, created_at, owns_image, from_snapshot) VALUES (?, ?, ?, ?, ?) ON CONFLICT(name) DO NOTHING',
        )
        .run(row.name, row.image, row.created_at, row.owns_image ?? 0, row.from_snapshot ?? null).changes > 0
    );
  }

  delete(name: string): void {
    this.db.prepare('DELETE FROM bases WHERE name = ?').run(name);
  }

  /** Boxes created from the base (forks of them keep its name). */
  boxesUsing(name: string): { project: string; name: string }[] {
    return this.db.prepare('SELECT project, name FROM boxes WHERE base = ? ORDER BY project, name').all(name) as {
      project: string;
      name: string;
    }[];
  }
}
