import fs from 'node:fs';
import path from 'node:path';
import { ApiError } from '../../../shared/errors';
import type { Scope, Token, TokenCreate, TokenCreated } from '../../../shared/schemas/system';
import { isStorageBusy } from '../db/database';
import { newId, now, randomBase32 } from '../ids';
import type { TokenStore } from './token-store';

export const TOKEN_FILE = 'token';

/** Which scopes a granted scope also covers. admin covers everything. */
const IMPLIED: Record<Scope, Scope[]> = {
  admin: ['admin', 'write', 'exec', 'read'],
  write: ['write', 'read'],
  exec: ['exec', 'read'],
  read: ['read'],
};

export function hasScope(token: Token, needed: Scope): boolean {
  return token.scopes.some((s) => IMPLIED[s].includes(needed));
}

export class AuthService {
  private lastTouch = new Map<string, number>();

  constructor(private readonly store: TokenStore) {}

  /**
   * On first start (or with `fresh`: --new-admin-token, the way back for whoever owns the data dir
   * after revoking their token): an admin token, stored hashed, its secret written to
   * <data dir>/token with mode 0600. Other tokens are kept.
   */
  ensureAdminToken(dataDir: string, fresh = false): void {
    const file = path.join(dataDir, TOKEN_FILE);
    if (!fresh && this.store.count() > 0 && fs.existsSync(file)) return;
    const name = fresh ? `admin (--new-admin-token, ${now().slice(0, 10)})` : 'admin (first start)';
    const created = this.create({ name, scopes: ['admin'] }, null);
    fs.writeFileSync(file, `${created.token}\n`, { mode: 0o600 });
    fs.chmodSync(file, 0o600);
  }

  authenticate(header: string | undefined): Token {
    if (!header)
      throw new ApiError('unauthorized', 'send a token as "Authorization: Bearer <token>"', {
        hint: 'the local admin token is in the file "token" in the data dir',
      });
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match) throw new ApiError('unauthorized', 'the Authorization header must be "Bearer <token>"');
    return this.authenticateSecret(match[1]!);
  }

  authenticateSecret(secret: string): Token {
    const token = this.store.findBySecret(secret);
    if (!token) throw new ApiError('unauthorized', 'the token is not valid (it may have been deleted)');
    // last_used_at has minute precision: no write per request
    const t = Date.now();
    if ((this.lastTouch.get(token.id) ?? 0) < t - 60_000) {
      // Bookkeeping only: a locked database must not turn a read into an error; retried next request.
      try {
        this.store.touch(token.id, now());
        this.lastTouch.set(token.id, t);
      } catch (err) {
        if (!isStorageBusy(err)) throw err;
      }
    }
    return token;
  }

  authorize(token: Token, scope: Scope, project: string | undefined, machineWide = false): void {
    if (!hasScope(token, scope)) {
      throw new ApiError('forbidden', `this token lacks the "${scope}" scope (it has: ${token.scopes.join(', ')})`);
    }
    if (token.project && project !== undefined && project !== token.project) {
      throw new ApiError('forbidden', `this token is restricted to project "${token.project}"`);
    }
    if (token.project && machineWide) {
      throw new ApiError(
        'forbidden',
        `this token is restricted to project "${token.project}" and cannot act on the whole machine`,
      );
    }
  }

  create(input: TokenCreate, by: Token | null): TokenCreated {
    const project = input.project ?? null;
    if (by?.project && project !== by.project) {
      throw new ApiError(
        'forbidden',
        `a token restricted to project "${by.project}" can only create tokens for that project`,
      );
    }
    const token: Token = {
      id: newId('tok'),
      name: input.name,
      scopes: [...input.scopes],
      project,
      created_at: now(),
      last_used_at: null,
    };
    const secret = `bdk_${randomBase32(40)}`;
    this.store.insert(token, secret);
    return { ...token, token: secret };
  }

  /** A token by id, for a session that names it (preview cookies). */
  tokenById(id: string): Token | undefined {
    return this.store.get(id);
  }

  /** The tokens `by` may see; `current` marks `by` itself (a client warns before revoking it). */
  list(by: Token): Token[] {
    return this.store
      .list()
      .filter((t) => !by.project || t.project === by.project)
      .map((t) => ({ ...t, current: t.id === by.id }));
  }

  delete(id: string, by: Token): void {
    const token = this.store.get(id);
    if (!token || (by.project && token.project !== by.project))
      throw new ApiError('not_found', `token "${id}" not found`);
    this.store.delete(id);
  }
}
