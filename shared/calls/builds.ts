import type { BaseBuild, BaseBuildList } from '../schemas/builds';
import { type ClientConstructor, type FetchResponse, type RequestBody, enc, queryString } from './client-core';

export interface BuildBaseOptions {
  /** The Dockerfile's path in the context (default Dockerfile). */
  dockerfile?: string;
  /** K=V each. */
  buildArgs?: string[];
  target?: string;
}

/** Builds of bases from a Dockerfile: start one with its context (a tar), follow its log, cancel it. */
export function withBuilds<B extends ClientConstructor>(Base: B) {
  return class BuildCalls extends Base {
    /** Sends the build context (a tar or gzip tar, streamed when a stream) and starts the build: 202. */
    async buildBase(name: string, context: RequestBody, options: BuildBaseOptions = {}): Promise<BaseBuild> {
      const qs = queryString([
        ['dockerfile', options.dockerfile],
        ['target', options.target],
        ...(options.buildArgs ?? []).map((kv): [string, string] => ['build_arg', kv]),
      ]);
      const res = await this.rawBytes('POST', `/v1/bases/${enc(name)}/build${qs}`, context, {
        'content-type': 'application/x-tar',
      });
      return (await res.json()) as BaseBuild;
    }

    listBaseBuilds(name: string): Promise<BaseBuildList> {
      return this.request('GET', `/v1/bases/${enc(name)}/builds`);
    }

    getBaseBuild(name: string, id: string): Promise<BaseBuild> {
      return this.request('GET', `/v1/bases/${enc(name)}/builds/${enc(id)}`);
    }

    /** The log as application/x-ndjson (BuildLogLine each line); `follow` streams until the build ends. */
    baseBuildLog(
      name: string,
      id: string,
      options: { follow?: boolean; signal?: unknown } = {},
    ): Promise<FetchResponse> {
      const qs = options.follow ? '?follow=1' : '';
      return this.raw(
        'GET',
        `/v1/bases/${enc(name)}/builds/${enc(id)}/log${qs}`,
        undefined,
        { accept: 'application/x-ndjson' },
        options.signal,
      );
    }

    cancelBaseBuild(name: string, id: string): Promise<void> {
      return this.request('DELETE', `/v1/bases/${enc(name)}/builds/${enc(id)}`);
    }
  };
}
