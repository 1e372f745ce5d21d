import { createHash } from 'node:crypto';
import type { Token, Scope } from '../../../shared/schemas/system';
import type { Db } from '../db/database';

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

export class TokenStore {
  constructor(private readonly db: Db) {}

  insert(token: Token, secret: string): void {
    this.db
      .prepare('INSERT INTO tokens (id, name, hash, scopes, project, created_at) VALUES (?, ?, ?, ?, ?, ?)')
      .run(token.id, token.name, hashToken(secret), JSON.stringify(token.scopes), token.project, token.created_at);
  }

  findBySecret(secret: string): Token | undefined {
    const row = this.db.prepare('SELECT * FROM tokens WHERE hash = ?').get(hashToken(secret)) as TokenRow | undefined;
    return row && toToken(row);
  }

  touch(id: string, at: string): void {
    this.db.prepare('UPDATE tokens SET last_used_at = ? WHERE id = ?').run(at, id);
  }

  list(): Token[] {
    return (this.db.prepare('SELECT * FROM tokens ORDER BY created_at, id').all() as TokenRow[]).map(toToken);
  }

  get(id: string): Token | undefined {
    const row = this.db.prepare('SELECT * FROM tokens WHERE id = ?').get(id) as TokenRow | undefined;
    return row && toToken(row);
  }

  delete(id: string): boolean {
    return this.db.prepare('DELETE FROM tokens WHERE id = ?').run(id).changes > 0;
  }

  count(): number {
    return this.db.prepare('SELECT count(*) FROM tokens').pluck().get() as number;
  }
}
