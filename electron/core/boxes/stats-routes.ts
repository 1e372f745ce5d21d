import type { FastifyInstance } from 'fastify';
import { PassThrough } from 'node:stream';
import { BoxParams } from '../../../shared/schemas/common';
import { BoxStats, StatsQuery } from '../../../shared/schemas/stats';
import type { ContainerEngine } from '../engine/container-engine';
import { problemResponses } from '../http/problem-responses';
import { resourceRoutes } from '../http/resource-routes';
import { sendLiveStream } from '../http/streaming';
import type { BoxService } from './service';

/** Resource samples of a running box, once or one a second. */
export class BoxStatsService {
  constructor(
    private readonly boxes: BoxService,
    private readonly engine: ContainerEngine,
  ) {}

  sample(project: string, name: string): Promise<BoxStats> {
    const row = this.boxes.requireRunning(project, name, 'stats');
    return this.engine.stats(row.container_id!);
  }

  /** Checks the box now (409 before any answer), then samples until `signal` aborts or the box stops running. */
  stream(
    project: string,
    name: string,
    onSample: (sample: BoxStats) => void,
    signal: AbortSignal,
  ): () => Promise<void> {
    const row = this.boxes.requireRunning(project, name, 'stats');
    const local = new AbortController();
    signal.addEventListener('abort', () => local.abort(), { once: true });
    return () =>
      this.engine.streamStats(
        row.container_id!,
        (sample) => {
          if (this.boxes.find(project, name).status !== 'running') return local.abort();
          onSample(sample);
        },
        local.signal,
      );
  }
}

export function registerBoxStatsRoutes(app: FastifyInstance, boxes: BoxService, engine: ContainerEngine): void {
  const stats = new BoxStatsService(boxes, engine);
  const { api, read } = resourceRoutes(app, 'boxes');
  api.get(
    '/v1/projects/:project/boxes/:name/stats',
    read("A sample of the running box's resource use", {
      description:
        'One BoxStats. With ?stream=1 the answer is application/x-ndjson: one BoxStats line a second until the client leaves or the box stops. A box that is not running: 409.',
      params: BoxParams,
      querystring: StatsQuery,
      response: {
        200: {
          description: 'One sample (application/json), or with ?stream=1 one sample a line (application/x-ndjson)',
          content: { 'application/json': { schema: BoxStats }, 'application/x-ndjson': { schema: BoxStats } },
        },
        ...problemResponses(404, 409),
      },
    }),
    async (request, reply) => {
      const { project, name } = request.params;
      if (request.query.stream !== '1' && request.query.stream !== 'true') return stats.sample(project, name);
      const abort = new AbortController();
      const out = new PassThrough();
      const run = stats.stream(project, name, (sample) => out.write(`${JSON.stringify(sample)}\n`), abort.signal);
      const res = sendLiveStream(reply, 'application/x-ndjson; charset=utf-8', out);
      res.on('close', () => abort.abort());
      run()
        .catch((err: Error) => request.log.warn({ err }, 'stats stream ended'))
        .finally(() => out.end());
    },
  );
}
