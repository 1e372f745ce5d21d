import type { Box, BoxCreate, BoxList, BoxUpdate } from '../schemas/box';
import type { EgressLog } from '../schemas/egress';
import type { BoxStats } from '../schemas/stats';
import { type ClientConstructor, type FetchResponse, enc, queryString, boxPath } from './client-core';

export interface BoxListFilter {
  status?: string;
  tag?: string[];
  limit?: number;
  cursor?: string;
}

/** Boxes: create (and fork), read, change, stop, resume, delete, logs, stats. */
export function withBoxes<B extends ClientConstructor>(Base: B) {
  return class BoxCalls extends Base {
    listBoxes(project: string, filter: BoxListFilter = {}): Promise<BoxList> {
      const qs = queryString([
        ['status', filter.status],
        ...(filter.tag ?? []).map((t): [string, string] => ['tag', t]),
        ['limit', filter.limit],
        ['cursor', filter.cursor],
      ]);
      return this.request('GET', `/v1/projects/${enc(project)}/boxes${qs}`);
    }

    /** With an idempotencyKey, a retry of the same create answers the first success again (the core remembers it 24 h). */
    createBox(project: string, body: BoxCreate, options: { idempotencyKey?: string } = {}): Promise<Box> {
      const headers: Record<string, string> = options.idempotencyKey
        ? { 'idempotency-key': options.idempotencyKey }
        : {};
      return this.request('POST', `/v1/projects/${enc(project)}/boxes`, body, headers);
    }

    getBox(project: string, name: string): Promise<Box> {
      return this.request('GET', boxPath(project, name));
    }

    updateBox(project: string, name: string, body: BoxUpdate): Promise<Box> {
      return this.request('PUT', boxPath(project, name), body);
    }

    deleteBox(project: string, name: string): Promise<void> {
      return this.request('DELETE', boxPath(project, name));
    }

    stopBox(project: string, name: string): Promise<Box> {
      return this.request('POST', boxPath(project, name, '/stop'));
    }

    resumeBox(project: string, name: string): Promise<Box> {
      return this.request('POST', boxPath(project, name, '/resume'));
    }

    /** Freezes the box in place; resume, or anything that needs it running, wakes it. */
    pauseBox(project: string, name: string): Promise<Box> {
      return this.request('POST', boxPath(project, name, '/pause'));
    }

    logs(
      project: string,
      name: string,
      options: { tail?: number; follow?: boolean; signal?: unknown } = {},
    ): Promise<FetchResponse> {
      const qs = queryString([
        ['tail', options.tail],
        ['follow', options.follow ? 'true' : undefined],
      ]);
      return this.raw('GET', boxPath(project, name, `/logs${qs}`), undefined, { accept: 'text/plain' }, options.signal);
    }

    /** One sample of the box's resource use. */
    boxStats(project: string, name: string): Promise<BoxStats> {
      return this.request('GET', boxPath(project, name, '/stats'));
    }

    /** The box's egress log, oldest first; with `after`, only the records newer than that id. */
    boxEgress(project: string, name: string, after?: number): Promise<EgressLog> {
      return this.request('GET', boxPath(project, name, `/egress${queryString([['after', after || undefined]])}`));
    }

    /** One BoxStats JSON line a second (application/x-ndjson) until the client leaves. */
    boxStatsStream(project: string, name: string, signal?: unknown): Promise<FetchResponse> {
      return this.raw(
        'GET',
        boxPath(project, name, '/stats?stream=1'),
        undefined,
        { accept: 'application/x-ndjson' },
        signal,
      );
    }

    /** A new box whose root is a copy-on-write copy of a box (at this instant) or of a snapshot (its id). */
    forkBox(
      project: string,
      source: string,
      name: string,
      extra: Omit<BoxCreate, 'name' | 'fork' | 'base'> = {},
      options: { idempotencyKey?: string } = {},
    ): Promise<Box> {
      return this.createBox(project, { ...extra, name, fork: source }, options);
    }
  };
}
