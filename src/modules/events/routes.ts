import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { EventsPage, EventsQuery } from './schema.js';
import { listEvents } from './service.js';

export const eventRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/events',
    {
      schema: {
        tags: ['events'],
        summary: 'The change feed: events after a sequence, in commit order (PRODUCT §9, docs/events.md)',
        querystring: EventsQuery,
        response: { 200: EventsPage },
      },
      config: { access: 'cross-store' },
    },
    (request) => listEvents(request.ctx, request.principal!, request.query),
  );
};
