import type { RegionList } from '../schemas/regions';
import type { SystemInfo, Version } from '../schemas/system';
import { type ClientConstructor } from './client-core';

/** The core itself: its version and its system information (its health: ClientCore). */
export function withSystem<B extends ClientConstructor>(Base: B) {
  return class SystemCalls extends Base {
    version(): Promise<Version> {
      return this.request('GET', '/version');
    }

    /** The data dir and the engine's capacity (scope read). */
    system(): Promise<SystemInfo> {
      return this.request('GET', '/v1/system');
    }

    /** The regions: each engine the core drives, its health, boxes, CPUs and memory (scope read). */
    regions(): Promise<RegionList> {
      return this.request('GET', '/v1/regions');
    }
  };
}
