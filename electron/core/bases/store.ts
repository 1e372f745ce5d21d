import type { Db } from '../db/database';

export interface BaseRow {
  name: string;
  image: string;
  created_at: string;
  /** 1 when the core made the image for this base (from a box, or imported) and removes it with the base. */
  owns_image?: number;
  /** The snapshot the base's root descends from, if any. */
  from_snapshot?: string | null;
  /** The warm pool's size: paused containers kept ready for creates of this base. */
  warm?: number;
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
          'INSERT INTO bases (name, image, created_at, owns_image, from_snapshot, warm) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(name) DO NOTHING',
        )
        .run(row.name, row.image, row.created_at, row.owns_image ?? 0, row.from_snapshot ?? null, row.warm ?? 0)
        .changes > 0
    );
  }

  /** Points a base at another image (the default base, when --default-base names a new one; a rebuilt base, which owns it). */
  setImage(name: string, image: string, ownsImage?: number): void {
    if (ownsImage === undefined) this.db.prepare('UPDATE bases SET image = ? WHERE name = ?').run(image, name);
    else
      this.db
        .prepare('UPDATE bases SET image = ?, owns_image = ?, from_snapshot = NULL WHERE name = ?')
        .run(image, ownsImage, name);
  }

  setWarm(name: string, warm: number): void {
    this.db.prepare('UPDATE bases SET warm = ? WHERE name = ?').run(warm, name);
  }

  delete(name: string): void {
    this.db.prepare('DELETE FROM bases WHERE name = ?').run(name);
  }

  /** Names of the bases made from the snapshot (or from a box whose root descends from it). */
  madeFrom(snapshotId: string): string[] {
    return this.db
      .prepare('SELECT name FROM bases WHERE from_snapshot = ? ORDER BY name')
      .pluck()
      .all(snapshotId) as string[];
  }
}
