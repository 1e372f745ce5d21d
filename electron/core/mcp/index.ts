import { defineModule } from '../module';
import { registerMcpRoutes } from './routes';

/** /v1/mcp: the agents' tools (shared/mcp/) over Streamable HTTP, through this core's own REST routes. */
export const mcp = defineModule({
  name: 'mcp',
  needs: [],
  migrations: [],
  create: () => undefined,
  routes: ({ app }) => registerMcpRoutes(app),
});
