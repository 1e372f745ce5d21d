import type { Token, TokenCreate, TokenCreated } from '../schemas/system';
import { type ClientConstructor, enc } from './client-core';

/** Tokens. */
export function withTokens<B extends ClientConstructor>(Base: B) {
  return class TokenCalls extends Base {
    listTokens(): Promise<{ items: Token[] }> {
      return this.request('GET', '/v1/tokens');
    }

    createToken(body: TokenCreate): Promise<TokenCreated> {
      return this.request('POST', '/v1/tokens', body);
    }

    deleteToken(id: string): Promise<void> {
      return this.request('DELETE', `/v1/tokens/${enc(id)}`);
    }
  };
}
