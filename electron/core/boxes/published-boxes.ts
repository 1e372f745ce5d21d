import type { Db } from '../db/database';
import type { BoxRow } from './box-row';

export interface PublishedState {
  port: number;
  url: string;
  auth: 'public' | 'token';
  domains: string[];
  /** Ports published besides `port`. */
  ports: number[];
}

/**
 * The SQL of a box's published state: its `url`, `url_auth` and `published_domains` columns
 * (the boxes table is this module's: publishing/ reads and writes them through BoxesPort.published).
 */
export class PublishedBoxes {
  // Prepared once: the proxy looks a box up on every request.
  private readonly byDomainStmt;
  private readonly byNameStmt;

  constructor(private readonly db: Db) {
    this.byDomainStmt = db.prepare(
      'SELECT boxes.* FROM boxes, json_each(boxes.published_domains) AS d WHERE boxes.url_auth IS NOT NULL AND d.value = ? LIMIT 1',
    );
    this.byNameStmt = db.prepare('SELECT * FROM boxes WHERE project = ? AND name = ? AND url_auth IS NOT NULL');
  }

  /** The published box that answers to `domain`, if any. */
  byDomain(domain: string): BoxRow | undefined {
    return this.byDomainStmt.get(domain) as BoxRow | undefined;
  }

  /** The box, if it is published. */
  published(project: string, name: string): BoxRow | undefined {
    return this.byNameStmt.get(project, name) as BoxRow | undefined;
  }

  /**
   * Sets the box's published state, unless another box already publishes one
   * of the domains: then nothing changes and that box is returned. One
   * transaction, so two boxes publishing one domain at once cannot both win.
   */
  publish(id: string, state: PublishedState, at: string): { owner: BoxRow; domain: string } | null {
    return this.db.transaction(() => {
      for (const domain of state.domains) {
        const owner = this.byDomain(domain);
        if (owner && owner.id !== id) return { owner, domain };
      }
      this.db
        .prepare(
          'UPDATE boxes SET port = ?, url = ?, url_auth = ?, published_domains = ?, published_ports = ?, updated_at = ? WHERE id = ?',
        )
        .run(
          state.port,
          state.url,
          state.auth,
          JSON.stringify(state.domains),
          state.ports.length ? JSON.stringify(state.ports) : null,
          at,
          id,
        );
      return null;
    })();
  }

  unpublish(id: string, at: string): void {
    this.db
      .prepare(
        'UPDATE boxes SET url = NULL, url_auth = NULL, published_domains = NULL, published_ports = NULL, updated_at = ? WHERE id = ?',
      )
      .run(at, id);
  }

  /** Rewrites every published box's URL for the proxy's port of this run. */
  refreshUrls(urlOf: (name: string, project: string) => string): void {
    const rows = this.db.prepare('SELECT id, name, project, url FROM boxes WHERE url_auth IS NOT NULL').all() as Pick<
      BoxRow,
      'id' | 'name' | 'project' | 'url'
    >[];
    const update = this.db.prepare('UPDATE boxes SET url = ? WHERE id = ?');
    this.db.transaction(() => {
      for (const row of rows) {
        const url = urlOf(row.name, row.project);
        if (url !== row.url) update.run(url, row.id);
      }
    })();
  }
}
