import type { Db } from '../db/database';
import { now, randomBase32 } from '../ids';

/** An upload in flight: its bytes go to `temp_path` beside `target`, which it replaces only once complete. */
export interface UploadIntent {
  id: string;
  box_id: string;
  project: string;
  box: string;
  container_id: string;
  temp_path: string;
  target: string;
  created_at: string;
}

/**
 * The uploads whose temporary file may be in a box. A row is written before the first byte reaches
 * the box and removed once the temporary file is gone, so what a crash left is known at start.
 */
export class UploadIntentStore {
  constructor(private readonly db: Db) {}

  record(intent: Omit<UploadIntent, 'id' | 'created_at'>): UploadIntent {
    const row: UploadIntent = { id: `upl_${randomBase32(20)}`, created_at: now(), ...intent };
    this.db
      .prepare(
        `INSERT INTO file_uploads (id, box_id, project, box, container_id, temp_path, target, created_at)
         VALUES (@id, @box_id, @project, @box, @container_id, @temp_path, @target, @created_at)`,
      )
      .run(row);
    return row;
  }

  list(): UploadIntent[] {
    return this.db.prepare('SELECT * FROM file_uploads ORDER BY created_at').all() as UploadIntent[];
  }

  delete(id: string): void {
    this.db.prepare('DELETE FROM file_uploads WHERE id = ?').run(id);
  }
}
