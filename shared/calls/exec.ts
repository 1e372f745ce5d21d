import type { ExecRequest, ExecResult } from '../schemas/exec';
import { type ClientConstructor, type FetchResponse, queryString, boxPath } from './client-core';

/** Commands in a box: to completion, streamed, or over a socket. */
export function withExec<B extends ClientConstructor>(Base: B) {
  return class ExecCalls extends Base {
    exec(project: string, name: string, body: ExecRequest): Promise<ExecResult> {
      return this.request('POST', boxPath(project, name, '/exec'), body);
    }

    /** The x-ndjson exec stream; parse each line as ExecStreamLine. */
    execStream(project: string, name: string, body: ExecRequest): Promise<FetchResponse> {
      return this.raw('POST', boxPath(project, name, '/exec'), body, {
        accept: 'application/x-ndjson',
      });
    }

    /** ws(s) URL of an exec or console socket; the token goes in the subprotocol, never the URL. */
    socketUrl(
      project: string,
      name: string,
      kind: 'exec' | 'console',
      query: [string, string | number | boolean | undefined][] = [],
    ): string {
      return `${this.baseUrl.replace(/^http/, 'ws')}${boxPath(project, name, `/${kind}`)}${queryString(query)}`;
    }
  };
}
