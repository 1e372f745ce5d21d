import { auth } from './auth';
import { baseAuthoring } from './bases/authoring-module';
import { bases } from './bases';
import { boxes } from './boxes';
import { builds } from './builds';
import { openDatabase, type Db } from './db/database';
import { events } from './events';
import { exec } from './exec';
import { files } from './files';
import { idempotency } from './idempotency';
import { jobs } from './jobs';
import { mcp } from './mcp';
import { publishing } from './publishing';
import { secrets } from './secrets';
import { services } from './services';
import { snapshots } from './snapshots';
import { storage } from './storage';
import { system } from './system';
import { up } from './up';
import { volumes } from './volumes';

/**
 * The core's modules, each after the modules it needs. This order is the order of their
 * migrations, creation, routes and start, and of their steps within an engine-up phase
 * (module.ts); they are disposed in reverse.
 */
export const modules = [
  auth,
  idempotency,
  events,
  bases,
  storage,
  system,
  secrets,
  boxes,
  snapshots,
  baseAuthoring,
  builds,
  volumes,
  files,
  jobs,
  exec,
  publishing,
  services,
  up,
  mcp,
] as const;

/** The core's database with every module's tables, for tests that use a store directly. */
export function openCoreDatabase(dataDir: string): Db {
  return openDatabase(dataDir, modules);
}
