import { defineModule } from '../module';
import { AuthService } from './auth-service';
import { AUTH_MIGRATIONS } from './migrations';
import type { AuthPort } from './port';
import { registerTokenRoutes } from './routes';
import { TokenStore } from './token-store';

/** Tokens: the admin token written at first start, and /v1/tokens. */
export const auth = defineModule({
  name: 'auth',
  needs: [],
  migrations: AUTH_MIGRATIONS,
  idPrefixes: ['tok'],
  create: (ctx): AuthService => {
    const service = new AuthService(new TokenStore(ctx.db));
    service.ensureAdminToken(ctx.config.dataDir, ctx.config.newAdminToken);
    return service;
  },
  port: (service): AuthPort => service,
  routes: ({ app }, service) => registerTokenRoutes(app, service),
});
