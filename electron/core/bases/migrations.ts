import type { Migration } from '../db/migrate';

/**
 * Bases (bases/): named images boxes start from.
 * Numbered in this folder: the Nth entry is version N. Append only; never edit a shipped one.
 */
export const BASES_MIGRATIONS: readonly Migration[] = [
  `CREATE TABLE bases (
    name TEXT PRIMARY KEY,
    image TEXT NOT NULL,
    created_at TEXT NOT NULL
  );`,
  // 2: whether the core made the image (it goes with the base), and the snapshot it descends from.
  `ALTER TABLE bases ADD COLUMN owns_image INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE bases ADD COLUMN from_snapshot TEXT;`,
  // 3: the warm pool's size (paused containers kept ready for creates); the default base starts at 2.
  `ALTER TABLE bases ADD COLUMN warm INTEGER NOT NULL DEFAULT 0;
  UPDATE bases SET warm = 2 WHERE name = 'default';`,
];
