import { createHash } from 'node:crypto';
import type { Token, Scope } from '../../../shared/schemas/system';
import type { Db } from '../db/database';
import { Table } from '../db/table';

interface TokenRow {
  id: string;
  name: string;
  hash: string;
  scopes: string;
  project: string | null;
  created_at: string;
  last_used_at: string | null;
}

export function hashToken(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

function toToken(row: TokenRow): Token {
  return {
    id: row.id,
    name: row.name,
    scopes: JSON.parse(row.scopes) as Scope[],
    project: row.project,
    created_at: row.created_at,
    last_used_at: row.last_used_at,
  };
}

/** The tokens table, through db/table.ts's statements; only the secret's hash is stored. */
export class TokenStore {
  private readonly rows: Table<TokenRow>;

  constructor(private readonly db: Db) {
    this.rows = new Table<TokenRow>(db, 'tokens');
  }

  insert(token: Token, secret: string): void {
    const { id, name, project, created_at, last_used_at } = token;
    const scopes = JSON.stringify(token.scopes);
    this.rows.insertRow({ id, name, hash: hashToken(secret), scopes, project, created_at, last_used_at });
  }

  findBySecret(secret: string): Token | undefined {
    const row = this.rows.selectOne('WHERE hash = ?', hashToken(secret));
    return row && toToken(row);
  }

  touch(id: string, at: string): void {
    this.db.prepare('UPDATE tokens SET last_used_at = ? WHERE id = ?').run(at, id);
  }

  list(): Token[] {
    return this.rows.select('ORDER BY created_at, id').map(toToken);
  }

  get(id: string): Token | undefined {
    const row = this.rows.getById(id);
    return row && toToken(row);
  }

  delete(id: string): void {
    this.rows.delete(id);
  }

  count(): number {
    return this.db.prepare('SELECT count(*) FROM tokens').pluck().get() as number;
  }
}
