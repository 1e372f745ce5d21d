import type { Box } from '../schemas/box';
import type { PublishRequest, SignInLink } from '../schemas/publishing';
import { type ClientConstructor, boxPath } from './client-core';

/** A box's preview URL. */
export function withPublishing<B extends ClientConstructor>(Base: B) {
  return class PublishingCalls extends Base {
    /** Publishes the box at its preview URL (`url` in the answer). */
    publishBox(project: string, name: string, body: PublishRequest = {}): Promise<Box> {
      return this.request('POST', boxPath(project, name, '/publish'), body);
    }

    unpublishBox(project: string, name: string): Promise<Box> {
      return this.request('DELETE', boxPath(project, name, '/publish'));
    }

    /** A link that opens the box's URL in a browser and signs it in once (a one-time code, never a token). */
    /** A one-time link to the box's URL (or, with `port`, to one of its other published ports' URL). */
    createSignInLink(project: string, name: string, port?: number): Promise<SignInLink> {
      return this.request('POST', boxPath(project, name, `/sign-in-link${port === undefined ? '' : `?port=${port}`}`));
    }
  };
}
