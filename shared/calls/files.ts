import type { FileChanges, FileList, FileStat } from '../schemas/files';
import { type ClientConstructor, type FetchResponse, type RequestBody, queryString, boxPath } from './client-core';

function filesPath(project: string, name: string, route = ''): string {
  return boxPath(project, name, `/files${route}`);
}

/** A box's files. */
export function withFiles<B extends ClientConstructor>(Base: B) {
  return class FileCalls extends Base {
    /** A file's bytes: the response's body is the stream (Content-Length says how many). */
    readFile(project: string, name: string, path: string): Promise<FetchResponse> {
      return this.raw('GET', filesPath(project, name) + queryString([['path', path]]), undefined, {
        accept: 'application/octet-stream',
      });
    }

    /** A directory's tree as a tar stream (regular files and directories, names relative to it). */
    readArchive(project: string, name: string, path: string): Promise<FetchResponse> {
      return this.raw('GET', filesPath(project, name, '/archive') + queryString([['path', path]]), undefined, {
        accept: 'application/x-tar',
      });
    }

    /**
     * Writes a file from bytes or a stream; creates missing parents. Give `size` with a stream so it
     * goes with a Content-Length and straight into the box (without it the core spools it first).
     */
    async writeFile(
      project: string,
      name: string,
      path: string,
      body: RequestBody,
      options: { mode?: string; size?: number } = {},
    ): Promise<FileStat> {
      const headers: Record<string, string> =
        options.size !== undefined ? { 'content-length': String(options.size) } : {};
      const res = await this.rawBytes(
        'PUT',
        filesPath(project, name) +
          queryString([
            ['path', path],
            ['mode', options.mode],
          ]),
        body,
        headers,
      );
      return (await res.json()) as FileStat;
    }

    statFile(project: string, name: string, path: string): Promise<FileStat> {
      return this.request('GET', filesPath(project, name, '/stat') + queryString([['path', path]]));
    }

    listFiles(project: string, name: string, path: string): Promise<FileList> {
      return this.request('GET', filesPath(project, name, '/list') + queryString([['path', path]]));
    }

    deleteFile(project: string, name: string, path: string, options: { recursive?: boolean } = {}): Promise<void> {
      return this.request(
        'DELETE',
        filesPath(project, name) +
          queryString([
            ['path', path],
            ['recursive', options.recursive ? 'true' : undefined],
          ]),
      );
    }

    makeDirectory(project: string, name: string, path: string, options: { parents?: boolean } = {}): Promise<FileStat> {
      return this.request(
        'POST',
        filesPath(project, name, '/mkdir') +
          queryString([
            ['path', path],
            ['parents', options.parents ? 'true' : undefined],
          ]),
      );
    }

    fileChanges(project: string, name: string): Promise<FileChanges> {
      return this.request('GET', filesPath(project, name, '/changes'));
    }
  };
}
