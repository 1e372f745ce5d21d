import type { Db } from '../db/database';
import { randomBase32 } from '../ids';

/** How long an Idempotency-Key's answer is kept. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

export type Claim =
  | { kind: 'claimed' }
  | { kind: 'replay'; status: number; body: unknown }
  | { kind: 'mismatch' }
  | { kind: 'in_progress' };

interface Row {
  request_hash: string;
  owner: string;
  status: number | null;
  body: string | null;
}

/**
 * Answers remembered per (token, Idempotency-Key). A key is claimed before the request runs
 * (so a concurrent retry waits its turn instead of running twice), completed with the answer,
 * or released when the request failed (a retry then runs it again).
 */
export class IdempotencyStore {
  /** Claims made by this process; a pending claim of an earlier process died with it. */
  private readonly owner = randomBase32(12);

  constructor(
    private readonly db: Db,
    private readonly clock: () => number = () => Date.now(),
  ) {}

  claim(tokenId: string, key: string, requestHash: string): Claim {
    return this.db
      .transaction((): Claim => {
        const t = this.clock();
        this.db.prepare('DELETE FROM idempotency_keys WHERE created_at <= ?').run(t - IDEMPOTENCY_TTL_MS);
        const row = this.db
          .prepare('SELECT request_hash, owner, status, body FROM idempotency_keys WHERE token_id = ? AND key = ?')
          .get(tokenId, key) as Row | undefined;
        if (row && row.request_hash !== requestHash) return { kind: 'mismatch' };
        if (row && row.status !== null)
          return { kind: 'replay', status: row.status, body: row.body === null ? undefined : JSON.parse(row.body) };
        if (row && row.owner === this.owner) return { kind: 'in_progress' };
        this.db
          .prepare(
            'INSERT INTO idempotency_keys (token_id, key, request_hash, owner, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (token_id, key) DO UPDATE SET owner = excluded.owner, created_at = excluded.created_at',
          )
          .run(tokenId, key, requestHash, this.owner, t);
        return { kind: 'claimed' };
      })
      .immediate();
  }

  complete(tokenId: string, key: string, status: number, body: unknown): void {
    this.db
      .prepare('UPDATE idempotency_keys SET status = ?, body = ? WHERE token_id = ? AND key = ? AND owner = ?')
      .run(status, body === undefined ? null : JSON.stringify(body), tokenId, key, this.owner);
  }

  release(tokenId: string, key: string): void {
    this.db
      .prepare('DELETE FROM idempotency_keys WHERE token_id = ? AND key = ? AND owner = ? AND status IS NULL')
      .run(tokenId, key, this.owner);
  }
}
