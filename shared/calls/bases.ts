import type { Base, BaseCreate, BaseUpdate } from '../schemas/system';
import { type ClientConstructor, type RequestBody, enc } from './client-core';

/** Bases: list, make (from an image, a snapshot, a box or a tar), update (the warm count), delete. */
export function withBases<B extends ClientConstructor>(Base: B) {
  return class BaseCalls extends Base {
    listBases(): Promise<{ items: Base[] }> {
      return this.request('GET', '/v1/bases');
    }

    createBase(body: BaseCreate): Promise<Base> {
      return this.request('POST', '/v1/bases', body);
    }

    updateBase(name: string, body: BaseUpdate): Promise<Base> {
      return this.request('PUT', `/v1/bases/${enc(name)}`, body);
    }

    deleteBase(name: string): Promise<void> {
      return this.request('DELETE', `/v1/bases/${enc(name)}`);
    }

    /** Streams a root filesystem tar into a new base; `size` (bytes) lets the core report progress against a total. */
    async importBase(name: string, tar: RequestBody, size?: number): Promise<Base> {
      const headers: Record<string, string> = size !== undefined ? { 'content-length': String(size) } : {};
      const res = await this.rawBytes('POST', `/v1/bases/${enc(name)}/import`, tar, headers);
      return (await res.json()) as Base;
    }
  };
}
