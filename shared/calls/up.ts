import { readNdjson, type ByteStream } from './byte-stream';
import type { UpLine, UpQuery } from '../schemas/up';
import { type ClientConstructor, type RequestBody, enc, queryString } from './client-core';

export interface UpOptions extends UpQuery {
  /** Aborting it closes the answer: a build in progress is cancelled. */
  signal?: unknown;
}

/** `box up`: a box from a project folder, sent as a tar; its progress read line by line. */
export function withUp<B extends ClientConstructor>(Base: B) {
  return class UpCalls extends Base {
    /**
     * Sends the folder (a tar or gzip tar, streamed when a stream; the caller leaves out what
     * .gitignore and .boxdeskignore say) and yields the answer's lines as they come: progress,
     * notes, the base's build log, the lifecycle commands' output, and last `done` (or `error`).
     */
    async *up(project: string, folder: RequestBody, options: UpOptions = {}): AsyncGenerator<UpLine> {
      const qs = queryString([
        ['name', options.name],
        ['folder', options.folder],
      ]);
      const res = await this.rawBytes(
        'POST',
        `/v1/projects/${enc(project)}/up${qs}`,
        folder,
        { 'content-type': 'application/x-tar', accept: 'application/x-ndjson' },
        options.signal,
      );
      yield* readNdjson<UpLine>(res.body as ByteStream);
    }
  };
}
