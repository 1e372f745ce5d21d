import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { secretEnvName, type Secret } from '../../../shared/schemas/secrets';

/** A secret as the egress proxy uses it: what Secret says, with its value and its placeholder. */
export interface StoredSecret extends Secret {
  value: string;
  /** What a box holds in its environment variable instead of the value. */
  placeholder: string;
}

interface SecretRow {
  name: string;
  value: string;
  hosts: string;
  header: string | null;
  placeholder: string;
  created_at: string;
}

/** Numbered migrations of the secrets database (append only). */
const MIGRATIONS = [
  `CREATE TABLE secrets (
    name TEXT PRIMARY KEY,
    value TEXT NOT NULL,
    hosts TEXT NOT NULL,
    header TEXT,
    placeholder TEXT NOT NULL UNIQUE,
    created_at TEXT NOT NULL
  );`,
];

function toSecret(row: SecretRow): StoredSecret {
  return {
    name: row.name,
    hosts: JSON.parse(row.hosts) as string[],
    header: row.header,
    env: secretEnvName(row.name),
    created_at: row.created_at,
    value: row.value,
    placeholder: row.placeholder,
  };
}

/**
 * Secrets' values, in a SQLite database of their own (`<data dir>/secrets/secrets.db`) rather than
 * the core's: the folder is 0700 and the file 0600, and nothing that copies or reports the core's
 * database (its tables, a support bundle) carries a value (docs/security.md, "Secrets").
 */
export class SecretStore {
  private readonly db: Database.Database;

  constructor(dataDir: string) {
    const dir = path.join(dataDir, 'secrets');
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    fs.chmodSync(dir, 0o700);
    const file = path.join(dir, 'secrets.db');
    if (!fs.existsSync(file)) fs.closeSync(fs.openSync(file, 'a', 0o600));
    fs.chmodSync(file, 0o600);
    this.db = new Database(file);
    this.db.pragma('journal_mode = DELETE'); // no -wal file beside it with another mode
    this.db.pragma('busy_timeout = 5000');
    const version = this.db.pragma('user_version', { simple: true }) as number;
    for (let v = version; v < MIGRATIONS.length; v++) {
      this.db.exec(MIGRATIONS[v]!);
      this.db.pragma(`user_version = ${v + 1}`);
    }
  }

  all(): StoredSecret[] {
    return (this.db.prepare('SELECT * FROM secrets ORDER BY name').all() as SecretRow[]).map(toSecret);
  }

  get(name: string): StoredSecret | undefined {
    const row = this.db.prepare('SELECT * FROM secrets WHERE name = ?').get(name) as SecretRow | undefined;
    return row && toSecret(row);
  }

  /** Records a new secret; false when one of that name exists. */
  insert(secret: StoredSecret): boolean {
    const result = this.db
      .prepare(
        'INSERT OR IGNORE INTO secrets (name, value, hosts, header, placeholder, created_at) VALUES (?, ?, ?, ?, ?, ?)',
      )
      .run(
        secret.name,
        secret.value,
        JSON.stringify(secret.hosts),
        secret.header,
        secret.placeholder,
        secret.created_at,
      );
    return result.changes === 1;
  }

  delete(name: string): boolean {
    return this.db.prepare('DELETE FROM secrets WHERE name = ?').run(name).changes === 1;
  }

  close(): void {
    this.db.close();
  }
}
