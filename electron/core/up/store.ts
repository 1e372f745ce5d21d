import type { Db } from '../db/database';

/** What the last `box up` put in a box: its base and image, its environment, and each file's digest. */
export interface UpRecord {
  box_id: string;
  base: string;
  image: string | null;
  environment: Record<string, string>;
  files: Record<string, string>;
}

interface UpRow {
  box_id: string;
  base: string;
  image: string | null;
  environment: string;
  files: string;
}

/** The boxes `box up` made (table box_ups): a second up of the folder compares with this. */
export class UpStore {
  constructor(private readonly db: Db) {}

  get(boxId: string): UpRecord | undefined {
    const row = this.db.prepare('SELECT * FROM box_ups WHERE box_id = ?').get(boxId) as UpRow | undefined;
    if (!row) return undefined;
    return {
      ...row,
      environment: JSON.parse(row.environment) as Record<string, string>,
      files: JSON.parse(row.files) as Record<string, string>,
    };
  }

  put(record: UpRecord, at: string): void {
    this.db
      .prepare(
        `INSERT INTO box_ups (box_id, base, image, environment, files, updated_at) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (box_id) DO UPDATE SET base = excluded.base, image = excluded.image,
           environment = excluded.environment, files = excluded.files, updated_at = excluded.updated_at`,
      )
      .run(
        record.box_id,
        record.base,
        record.image,
        JSON.stringify(record.environment),
        JSON.stringify(record.files),
        at,
      );
  }

  remove(boxId: string): void {
    this.db.prepare('DELETE FROM box_ups WHERE box_id = ?').run(boxId);
  }
}
