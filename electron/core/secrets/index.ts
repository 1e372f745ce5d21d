import { defineModule } from '../module';
import type { SecretsPort } from './port';
import { registerSecretRoutes } from './routes';
import { SecretStore } from './secret-store';
import { SecretService } from './service';

/** Secrets (/v1/secrets): write-only values bound to hosts, for the egress proxy (networks/egress-proxy.ts). */
export const secrets = defineModule({
  name: 'secrets',
  needs: [],
  migrations: [],
  create: (ctx): SecretService => new SecretService(new SecretStore(ctx.config.dataDir), ctx.config.dataDir),
  port: (service): SecretsPort => service,
  routes: ({ app }, service) => registerSecretRoutes(app, service),
  dispose: (service) => service.close(),
});
