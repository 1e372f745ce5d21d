import type { FastifyInstance } from 'fastify';
import type { BoxdeskEvent } from '../../../shared/events';
import { RESET_EVENT } from '../../../shared/reset-event';
import { requireToken } from '../http/auth-guard';
import { textStream } from '../http/problem-responses';
import { resourceRoutes } from '../http/resource-routes';
import { sendLiveStream } from '../http/streaming';
import type { EventBus } from './event-bus';

function frame(event: BoxdeskEvent): string {
  return `id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}

export function registerEventRoutes(app: FastifyInstance, bus: EventBus, heartbeatMs = 15_000): void {
  const { api, read } = resourceRoutes(app, 'events');
  api.get(
    '/v1/events',
    read('Server-sent events for every state change', {
      description:
        'text/event-stream. Each event has an id; reconnect with the Last-Event-ID header to receive what you missed. When that id is unknown or too old, a "reset" event tells the client to refetch. A project-restricted token sees only its project.',
      response: { 200: textStream('text/event-stream', 'Server-sent events, until the client leaves') },
    }),
    (request, reply) => {
      const token = requireToken(request.token);
      const visible = (e: BoxdeskEvent) => !token.project || e.project === null || e.project === token.project;
      const res = sendLiveStream(reply, 'text/event-stream; charset=utf-8', null, { connection: 'keep-alive' });
      res.write(': boxdesk events\nretry: 2000\n\n');
      const lastId = request.headers['last-event-id'];
      if (typeof lastId === 'string' && lastId) {
        const missed = bus.since(lastId);
        if (missed === null)
          res.write(`event: ${RESET_EVENT}\ndata: {"reason":"Last-Event-ID is unknown or too old; refetch"}\n\n`);
        else for (const e of missed) if (visible(e)) res.write(frame(e));
      }
      const unsubscribe = bus.subscribe((e) => {
        if (visible(e)) res.write(frame(e));
      });
      const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), heartbeatMs);
      const close = () => {
        clearInterval(heartbeat);
        unsubscribe();
      };
      res.on('close', close);
    },
  );
}
