import type { FastifyInstance } from 'fastify';
import { RegionList, type Region } from '../../../shared/schemas/regions';
import type { Regions } from '../engine/regions/regions';
import { resourceRoutes } from '../http/resource-routes';

export interface RegionSources {
  regions: Regions;
  /** Boxes per region, from the boxes' records (they read while an engine is away). */
  boxes: () => Map<string, number>;
}

/** GET /v1/regions: every engine the core drives, its health, its boxes and what it can give. */
export function registerRegionRoutes(app: FastifyInstance, { regions, boxes }: RegionSources): void {
  const { api, read } = resourceRoutes(app, 'system');
  api.get(
    '/v1/regions',
    read(
      'The regions: each engine the core drives (the first is the default config.region), whether it is up, its boxes, CPUs and memory',
      { response: { 200: RegionList } },
    ),
    async () => {
      const counts = boxes();
      const items: Region[] = regions.all.map(({ name, engine, monitor }) => {
        const { up, reason, info } = monitor.current;
        return {
          name,
          engine: {
            name: engine.name,
            version: info?.version ?? null,
            up,
            reason,
            url: engine.endpoint.url,
            found_by: engine.endpoint.foundBy,
          },
          boxes: counts.get(name) ?? 0,
          cpus: up && info ? info.cpus : null,
          memory_bytes: up && info ? info.memoryBytes : null,
        };
      });
      return { items };
    },
  );
}
