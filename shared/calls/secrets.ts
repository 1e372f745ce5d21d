import type { Secret, SecretCreate } from '../schemas/secrets';
import { type ClientConstructor, enc } from './client-core';

/** Secrets: write-only values the egress proxy puts into requests to their hosts. */
export function withSecrets<B extends ClientConstructor>(Base: B) {
  return class SecretCalls extends Base {
    listSecrets(): Promise<{ items: Secret[] }> {
      return this.request('GET', '/v1/secrets');
    }

    /** The value goes in the body only; the answer never carries it. */
    createSecret(body: SecretCreate): Promise<Secret> {
      return this.request('POST', '/v1/secrets', body);
    }

    deleteSecret(name: string): Promise<void> {
      return this.request('DELETE', `/v1/secrets/${enc(name)}`);
    }
  };
}
