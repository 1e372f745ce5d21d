import type { AuthService } from './auth-service';

export { hasScope } from './auth-service';

/** What the HTTP guard, the socket router and the preview proxy ask of tokens. */
export type AuthPort = Pick<AuthService, 'authenticate' | 'authenticateSecret' | 'authorize' | 'tokenById'>;
