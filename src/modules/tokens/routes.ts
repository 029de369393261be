import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { CurrentToken } from './schema.js';
import { describeToken } from './service.js';

export const tokenRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/tokens/current',
    {
      schema: {
        tags: ['tokens'],
        summary: 'The calling token: its name, role, stores and expiry (added for the store console, docs/console.md)',
        response: { 200: CurrentToken },
      },
      // Any valid token may describe itself: it learns nothing it could not find out by trying.
      config: { access: 'any' },
    },
    (request) => describeToken(request.ctx.db, request.principal!),
  );
};
