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

/**
 * How a line of the answer reads in a log (`box up` on stderr, the window's dialog); an error line
 * starts with `errorPrefix`. The box's name (the `done` line) is the caller's to show.
 */
export function upLineText(line: UpLine, errorPrefix: string): string {
  switch (line.type) {
    case 'progress':
      return `${line.message}\n`;
    case 'note':
      return `note: ${line.message}\n`;
    case 'build':
      if (line.step) return `Step ${line.step}\n`;
      return line.stream?.trim() ? (line.stream.endsWith('\n') ? line.stream : `${line.stream}\n`) : '';
    case 'output':
      return line.data;
    case 'error':
      return `${errorPrefix}${line.message}\n`;
    default:
      return '';
  }
}
