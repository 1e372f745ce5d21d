import Database from 'better-sqlite3';
import path from 'node:path';
import { docker } from './docker';

/** The core's instance id, which labels every container and fork image it makes. */
export function instanceIdOf(dataDir: string): string {
  const db = new Database(path.join(dataDir, 'boxdesk.db'), { readonly: true, fileMustExist: true });
  try {
    return db.prepare("SELECT value FROM meta WHERE key = 'instance_id'").pluck().get() as string;
  } finally {
    db.close();
  }
}

export interface BoxRowView {
  id: string;
  project: string;
  name: string;
  status: string;
  container_id: string | null;
  environment: string;
  tags: string;
}

/** The boxes table as the core left it, read with a second, read-only connection (WAL lets it read while the core writes). */
export function boxRows(dataDir: string): BoxRowView[] {
  const db = new Database(path.join(dataDir, 'boxdesk.db'), { readonly: true, fileMustExist: true });
  try {
    return db
      .prepare('SELECT id, project, name, status, container_id, environment, tags FROM boxes ORDER BY project, name')
      .all() as BoxRowView[];
  } finally {
    db.close();
  }
}

/** Removes whatever a test's core left on the engine: its labelled containers, fork images, volumes and networks (only that instance's). */
export async function removeInstanceLeftovers(instance: string): Promise<void> {
  const label = `boxdesk.instance=${instance}`;
  for (const c of await docker.listContainers({ all: true, filters: { label: [label] } }))
    await docker
      .getContainer(c.Id)
      .remove({ force: true, v: true })
      .catch(() => undefined);
  for (const image of await docker.listImages({ filters: { label: [label] } }))
    await docker
      .getImage(image.Id)
      .remove({ force: true })
      .catch(() => undefined);
  for (const v of (await docker.listVolumes({ filters: { label: [label] } })).Volumes ?? [])
    await docker
      .getVolume(v.Name)
      .remove({ force: true })
      .catch(() => undefined);
  // Its project networks (networks/): each holds a /24 of Boxdesk's range until removed.
  for (const n of await docker.listNetworks({ filters: { label: [label] } }))
    await docker
      .getNetwork(n.Id)
      .remove()
      .catch(() => undefined);
}
