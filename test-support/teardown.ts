import fs from 'node:fs';
import { api, type CoreProcess } from './core-process';

export interface Made {
  /** Projects whose services, boxes, snapshots and volumes go. */
  projects: readonly string[];
  /** Also every base but "default". */
  bases?: boolean;
  /** Local files and directories to remove. */
  paths?: readonly string[];
}

/** The names (or ids) of a list the API returns, every page of it. */
async function listed(core: CoreProcess, pathname: string, key: 'name' | 'id'): Promise<string[]> {
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

/** DELETEs each path; says which would not go. */
async function removeAll(core: CoreProcess, paths: string[]): Promise<string[]> {
  const failed: string[] = [];
  for (const p of paths) {
    const res = await api(core, 'DELETE', p);
    await res.arrayBuffer();
    if (res.status !== 204 && res.status !== 404) failed.push(`DELETE ${p}: ${res.status}`);
  }
  return failed;
}

/**
 * After a test file: removes what it made through the API (in each project its
 * services, boxes, snapshots newest first and volumes; with `bases`, every
 * base but "default"), stops the core (its data dir goes with it) and removes
 * `paths`. Having done all it can, it fails naming whatever would not go: the
 * engine is shared, and a leftover container or image is a bug to see.
 */
export async function teardown(core: CoreProcess | undefined, made: Made): Promise<void> {
  const failed: string[] = [];
  if (core && core.child.exitCode === null) {
    for (const project of made.projects) {
      const p = `/v1/projects/${project}`;
      failed.push(
        ...(await removeAll(
          core,
          (await listed(core, `${p}/services`, 'name')).map((n) => `${p}/services/${n}`),
        )),
      );
      failed.push(
        ...(await removeAll(
          core,
          (await listed(core, `${p}/boxes`, 'name')).map((n) => `${p}/boxes/${n}`),
        )),
      );
    }
    if (made.bases) {
      const bases = (await listed(core, '/v1/bases', 'name')).filter((n) => n !== 'default');
      failed.push(
        ...(await removeAll(
          core,
          bases.map((n) => `/v1/bases/${n}`),
        )),
      );
    }
    for (const project of made.projects) {
      const p = `/v1/projects/${project}`;
      const snapshots = (await listed(core, `${p}/snapshots`, 'id')).reverse();
      failed.push(
        ...(await removeAll(
          core,
          snapshots.map((id) => `${p}/snapshots/${id}`),
        )),
      );
      failed.push(
        ...(await removeAll(
          core,
          (await listed(core, `${p}/volumes`, 'name')).map((n) => `${p}/volumes/${n}`),
        )),
      );
    }
  }
  await core?.stop();
  for (const p of made.paths ?? []) fs.rmSync(p, { recursive: true, force: true });
  if (failed.length) throw new Error(`teardown left things behind:\n${failed.join('\n')}`);
}
