import type { Box } from '../schemas/box';
import type { PublishRequest } from '../schemas/publishing';
import { type ClientConstructor, enc } from './client-core';

/** A box's preview URL. */
export function withPublishing<B extends ClientConstructor>(Base: B) {
  return class PublishingCalls extends Base {
    /** Publishes the box at its preview URL (`url` in the answer). */
    publishBox(project: string, name: string, body: PublishRequest = {}): Promise<Box> {
      return this.request('POST', `/v1/projects/${enc(project)}/boxes/${enc(name)}/publish`, body);
    }

    unpublishBox(project: string, name: string): Promise<Box> {
      return this.request('DELETE', `/v1/projects/${enc(project)}/boxes/${enc(name)}/publish`);
    }
  };
}
