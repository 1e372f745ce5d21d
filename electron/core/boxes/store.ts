import type { BoxStatus, DataMount } from '../../../shared/schemas/box';
import type { Db } from '../db/database';
import { ProjectTable } from '../db/table';
import type { BoxRow } from './box-row';

/** A box's mount of a volume. */
export interface BoxMount {
  box: string;
  box_id: string;
  status: BoxStatus;
  path: string;
  read_only: boolean;
}

export interface ListFilter {
  status?: BoxStatus;
  tags: [string, string][];
  after?: { created_at: string; id: string };
  limit: number;
}

type Patch = Partial<
  Pick<
    BoxRow,
    | 'status'
    | 'status_reason'
    | 'config'
    | 'environment'
    | 'network'
    | 'secrets'
    | 'tags'
    | 'port'
    | 'grace_seconds'
    | 'container_id'
    | 'owns_image'
    | 'image'
    | 'origin'
    | 'pending_root'
    | 'url'
    | 'url_auth'
    | 'published_domains'
    | 'data_mounts'
    | 'workspace_item'
    | 'workspace_volume'
    | 'workspace_quota'
    | 'size_bytes'
    | 'exclusive_bytes'
    | 'frozen'
    | 'lifecycle'
    | 'last_used_at'
    | 'status_since'
  >
>;

export class BoxStore extends ProjectTable<BoxRow, Patch> {
  constructor(db: Db) {
    super(db, 'boxes');
  }

  /** A change of status also records when it took it (status_since: the auto_delete clock counts from it). */
  override update(id: string, patch: Patch, at?: string): BoxRow {
    if (patch.status !== undefined && patch.status_since === undefined && this.getById(id)?.status !== patch.status)
      return super.update(id, { ...patch, status_since: new Date().toISOString() }, at);
    return super.update(id, patch, at);
  }

  /** Boxes with clocks set (the lifecycle loop's only read). */
  withLifecycle(): BoxRow[] {
    return this.select('WHERE lifecycle IS NOT NULL');
  }

  /** false when the project already has a box of that name */
  insert(row: BoxRow): boolean {
    return this.insertUnlessTaken(row, 'project, name');
  }

  list(project: string, filter: ListFilter): BoxRow[] {
    const where = ['project = @project'];
    const params: Record<string, unknown> = { project, limit: filter.limit };
    if (filter.status) {
      where.push('status = @status');
      params.status = filter.status;
    }
    filter.tags.forEach(([k, v], i) => {
      where.push(`json_extract(tags, @tagPath${i}) = @tagValue${i}`);
      params[`tagPath${i}`] = `$."${k.replace(/"/g, '')}"`;
      params[`tagValue${i}`] = v;
    });
    if (filter.after) {
      where.push('(created_at, id) > (@afterCreated, @afterId)');
      params.afterCreated = filter.after.created_at;
      params.afterId = filter.after.id;
    }
    return this.select(`WHERE ${where.join(' AND ')} ORDER BY created_at, id LIMIT @limit`, params);
  }

  /** Boxes created from the base (forks of them keep its name). */
  /** Boxes per region (a row from before regions has none in its config: `local`). */
  countByRegion(): Map<string, number> {
    const rows = this.db
      .prepare(
        "SELECT coalesce(json_extract(config, '$.region'), 'local') AS region, count(*) AS n FROM boxes GROUP BY 1",
      )
      .all() as { region: string; n: number }[];
    return new Map(rows.map((r) => [r.region, r.n]));
  }

  usersOfBase(name: string): { project: string; name: string }[] {
    return this.db.prepare('SELECT project, name FROM boxes WHERE base = ? ORDER BY project, name').all(name) as {
      project: string;
      name: string;
    }[];
  }

  /** Boxes whose root descends from the snapshot (restored or forked from it). */
  withOrigin(snapshotId: string): { project: string; name: string }[] {
    return this.db
      .prepare('SELECT project, name FROM boxes WHERE origin = ? ORDER BY project, name')
      .all(snapshotId) as { project: string; name: string }[];
  }

  /** Who mounts the volume `name` of the project, from the boxes' own data_mounts (the one record of a mount). */
  mountsOf(project: string, name: string): BoxMount[] {
    const rows = this.db
      .prepare(
        'SELECT id, name, status, data_mounts FROM boxes WHERE project = ? AND data_mounts IS NOT NULL ORDER BY name',
      )
      .all(project) as {
      id: string;
      name: string;
      status: BoxStatus;
      data_mounts: string;
    }[];
    return rows.flatMap((b) =>
      (JSON.parse(b.data_mounts) as DataMount[])
        .filter((m) => m.name === name)
        .map((m) => ({ box: b.name, box_id: b.id, status: b.status, path: m.path, read_only: m.read_only ?? false })),
    );
  }
}
