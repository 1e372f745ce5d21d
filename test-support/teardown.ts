import fs from 'node:fs';
import { api, type CoreProcess } from './core-process';

type Core = Pick<CoreProcess, 'url' | 'token'>;

export interface Made {
  /** Projects whose services, boxes, snapshots and volumes go. */
  projects: readonly string[];
  /** Also every base but "default". */
  bases?: boolean;
  /** Local files and directories to remove. */
  paths?: readonly string[];
}

/** The names (or ids) of a list the API returns, every page of it. */
async function listed(core: Core, pathname: string, key: 'name' | 'id'): Promise<string[]> {
  const names: string[] = [];
  for (let cursor: string | null = null; ;) {
    const res = await api(core, 'GET', cursor ? `${pathname}?cursor=${encodeURIComponent(cursor)}` : pathname);
    if (res.status !== 200) throw new Error(`GET ${pathname} answered ${res.status}: ${await res.text()}`);
    const page = (await res.json()) as { items: Record<string, string>[]; next_cursor?: string | null };
    names.push(...page.items.map((item) => item[key]!));
    cursor = page.next_cursor ?? null;
    if (!cursor) return names;
  }
}

/** DELETEs each `${collection}/${name}`; says which would not go. */
async function removeAll(core: Core, collection: string, names: string[]): Promise<string[]> {
  const failed: string[] = [];
  for (const name of names) {
    const res = await api(core, 'DELETE', `${collection}/${name}`);
    await res.arrayBuffer();
    if (res.status !== 204 && res.status !== 404) failed.push(`DELETE ${collection}/${name}: ${res.status}`);
  }
  return failed;
}

/**
 * Removes what tests made through the API, in an order every delete is
 * allowed in: each project's services and boxes, then (with `bases`) every
 * base but "default", then each project's snapshots newest first and its
 * volumes. Fails, having done all it can, naming whatever would not go.
 */
export async function clearProjects(core: Core, projects: readonly string[], options: { bases?: boolean } = {}) {
  const failed: string[] = [];
  const each = async (collection: (p: string) => string, key: 'name' | 'id', newestFirst = false) => {
    for (const project of projects) {
      const names = await listed(core, collection(project), key);
      failed.push(...(await removeAll(core, collection(project), newestFirst ? names.reverse() : names)));
    }
  };
  await each((p) => `/v1/projects/${p}/services`, 'name');
  await each((p) => `/v1/projects/${p}/boxes`, 'name');
  if (options.bases) {
    const bases = (await listed(core, '/v1/bases', 'name')).filter((n) => n !== 'default');
    failed.push(...(await removeAll(core, '/v1/bases', bases)));
  }
  await each((p) => `/v1/projects/${p}/snapshots`, 'id', true);
  await each((p) => `/v1/projects/${p}/volumes`, 'name');
  if (failed.length) throw new Error(`could not remove what the tests made:\n${failed.join('\n')}`);
}

/**
 * After a test file: clears its projects (clearProjects), stops the core (its
 * data dir goes with it) and removes `paths`; then fails if anything would not
 * go: the engine is shared, and a leftover container or image is a bug to see.
 */
export async function teardown(core: CoreProcess | undefined, made: Made): Promise<void> {
  let failure: unknown;
  if (core && core.child.exitCode === null)
    await clearProjects(core, made.projects, { bases: made.bases }).catch((err: unknown) => (failure = err));
  await core?.stop();
  for (const p of made.paths ?? []) fs.rmSync(p, { recursive: true, force: true });
  if (failure) throw failure;
}
