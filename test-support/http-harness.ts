import type { FastifyInstance } from 'fastify';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import { AuthService } from '../electron/core/auth/auth-service';
import { TokenStore } from '../electron/core/auth/token-store';
import type { Db } from '../electron/core/db/database';
import { openCoreDatabase } from '../electron/core/modules';
import { tempDataDir } from './core-process';

/** What a piece of the HTTP layer needs to check tokens: the core's database in a temp data dir, and AuthService on it. */
export interface AuthHarness {
  dir: string;
  db: Db;
  auth: AuthService;
  /** Listens on 127.0.0.1 on a free port: the port. */
  listen(app: FastifyInstance): Promise<number>;
  /** Closes the app it listened with, then the database, and removes the data dir. */
  close(): Promise<void>;
}

export function authHarness(): AuthHarness {
  const dir = tempDataDir();
  const db = openCoreDatabase(dir);
  let served: FastifyInstance | null = null;
  return {
    dir,
    db,
    auth: new AuthService(new TokenStore(db)),
    async listen(app) {
      served = app;
      await app.listen({ host: '127.0.0.1', port: 0 });
      return (app.server.address() as AddressInfo).port;
    },
    async close() {
      await served?.close();
      db.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
