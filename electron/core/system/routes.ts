import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import {
  Health,
  SystemInfo,
  Version,
  type DefaultBaseInfo,
  type PoolInfo,
  type ProxyEdgeInfo,
} from '../../../shared/schemas/system';
import type { EngineMonitor } from '../engine/engine-monitor';
import type { AgentReport } from '../engine/agent';
import { resourceRoutes } from '../http/resource-routes';
import type { StorageReport } from '../storage/port';
import { CORE_VERSION } from '../version';

/** The document as an answer: an object, written as it is (its own shape is OpenAPI 3.1's). */
const OPENAPI_DOCUMENT = Type.Object({}, { additionalProperties: true, description: 'An OpenAPI 3.1 document' });

/** What the system routes report on. */
export interface SystemSources {
  monitor: EngineMonitor;
  /** The driver's name; once the engine has answered, the one it reports (docker or podman) is said instead. */
  engineName: string;
  endpoint: { url: string; foundBy: string };
  dataDir: string;
  agent: AgentReport;
  storage: () => Promise<StorageReport>;
  defaultBase: () => Promise<DefaultBaseInfo>;
  proxyPort: () => number;
  proxyEdge: () => ProxyEdgeInfo;
  /** The warm pools (boxes/pool/warm-pool.ts). */
  pools: () => PoolInfo[];
}

export function registerSystemRoutes(
  app: FastifyInstance,
  { monitor, engineName, endpoint, dataDir, agent, storage, defaultBase, proxyPort, proxyEdge, pools }: SystemSources,
): void {
  const { api, read } = resourceRoutes(app, 'system');
  api.get(
    '/version',
    { schema: { tags: ['system'], summary: 'API and engine versions (no token needed)', response: { 200: Version } } },
    async () => {
      const { name = engineName, version = null, apiVersion = null } = monitor.current.info ?? {};
      return { api: 'v1' as const, version: CORE_VERSION, engine: { name, version, api_version: apiVersion } };
    },
  );

  api.get(
    '/v1/system',
    read(
      "The core's data dir, what the engine can give a box, the default base, the copy-on-write store, the box agent, the preview proxy's port and the warm pools",
      { response: { 200: SystemInfo } },
    ),
    async () => {
      const { up, info } = monitor.current;
      return {
        version: CORE_VERSION,
        data_dir: dataDir,
        engine: {
          name: info?.name ?? engineName,
          endpoint: { url: endpoint.url, found_by: endpoint.foundBy },
          up,
          version: info?.version ?? null,
          api_version: info?.apiVersion ?? null,
          cpus: info?.cpus ?? null,
          memory_bytes: info?.memoryBytes ?? null,
          storage_limit: info?.storageLimit ?? null,
        },
        default_base: await defaultBase(),
        storage: await storage(),
        agent,
        proxy_port: proxyPort(),
        proxy_edge: proxyEdge(),
        pools: pools(),
      };
    },
  );

  api.get(
    '/healthz',
    {
      schema: {
        tags: ['system'],
        summary: 'Health of the API and of the engine beneath it (no token needed)',
        response: { 200: Health, 503: Health },
      },
    },
    async (_request, reply) => {
      const health = await monitor.check();
      const body = {
        status: health.up ? ('ok' as const) : ('degraded' as const),
        api: 'ok' as const,
        cluster: {
          status: health.up ? ('ok' as const) : ('unreachable' as const),
          engine: health.info?.name ?? engineName,
          ...(health.reason ? { reason: health.reason } : {}),
          checked_at: health.checkedAt,
        },
      };
      return reply.code(health.up ? 200 : 503).send(body);
    },
  );

  registerOpenApiRoute(app);
}

/** GET /v1/openapi.json. */
function registerOpenApiRoute(app: FastifyInstance): void {
  const { api, read } = resourceRoutes(app, 'system');
  // A /v1 route like the others, so it takes a token (SPEC: every /v1 route does); docs/openapi.json is
  // the same document for whoever has no core or no token at hand.
  api.get(
    '/v1/openapi.json',
    read('This OpenAPI 3.1 document (needs a read token, as every /v1 route does)', {
      description:
        'Generated from the schemas that validate requests. Without a token it is a 401; the repository holds the same document as docs/openapi.json.',
      response: { 200: OPENAPI_DOCUMENT },
    }),
    async () => app.swagger(),
  );
}
