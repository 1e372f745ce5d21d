import type { FastifyInstance } from 'fastify';
import { BoxParams } from '../../../shared/schemas/common';
import { Job, JobList, JobOutputQuery, JobParams, JOB_OUTPUT_OFFSET_HEADER } from '../../../shared/schemas/jobs';
import { deletedResponse, problemResponses, textStream } from '../http/problem-responses';
import { clientGoneSignal, noContent, resourceRoutes } from '../http/resource-routes';
import { sendLiveStream } from '../http/streaming';
import type { JobService } from './service';

const jobsPath = '/v1/projects/:project/boxes/:name/jobs';

export function registerJobRoutes(app: FastifyInstance, jobs: JobService): void {
  const { api, read, exec, list } = resourceRoutes(app, 'jobs');
  list(jobsPath, "A box's background commands, oldest first", BoxParams, JobList, (p) => jobs.list(p.project, p.name));
  api.get(
    `${jobsPath}/:id`,
    read('Get a job', { params: JobParams, response: { 200: Job, ...problemResponses(404) } }),
    async (request) => jobs.get(request.params.project, request.params.name, request.params.id),
  );
  api.get(
    `${jobsPath}/:id/output`,
    exec("A job's output from a byte offset (application/octet-stream)", {
      description: `The bytes of one stream from \`from\`; a job keeps about the last MiB of each stream, so an older offset answers from its oldest kept byte. The ${JOB_OUTPUT_OFFSET_HEADER} header gives the offset of the first byte sent. follow=true streams new bytes until the job ends or the client leaves.`,
      params: JobParams,
      querystring: JobOutputQuery,
      response: { 200: textStream('application/octet-stream', "The job's output"), ...problemResponses(404, 409) },
    }),
    async (request, reply) => {
      const { project, name, id } = request.params;
      const { offset, body } = await jobs.output(project, name, id, request.query, clientGoneSignal(reply));
      const headers = { [JOB_OUTPUT_OFFSET_HEADER]: String(offset) };
      if (Buffer.isBuffer(body)) {
        return reply.headers({ ...headers, 'content-type': 'application/octet-stream' }).send(body);
      }
      sendLiveStream(reply, 'application/octet-stream', body, headers);
    },
  );
  api.post(
    `${jobsPath}/:id/kill`,
    exec('Kill a job and every process it started', {
      params: JobParams,
      response: { 200: Job, ...problemResponses(404) },
    }),
    async (request) => jobs.kill(request.params.project, request.params.name, request.params.id),
  );
  api.delete(
    `${jobsPath}/:id`,
    exec('Delete a job and its kept output (killing it first if it runs)', {
      params: JobParams,
      response: { ...deletedResponse, ...problemResponses(404) },
    }),
    async (request, reply) =>
      noContent(reply, jobs.delete(request.params.project, request.params.name, request.params.id)),
  );
}
