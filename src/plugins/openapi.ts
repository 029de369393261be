import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { API_PREFIX } from './auth.js';

/**
 * The contract, generated from the same TypeBox schemas that validate requests:
 * OpenAPI 3.1 at /api/v2/public/openapi.json and an interactive reference at /docs,
 * served from the @fastify/swagger-ui package (no CDN).
 */
export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Store Operations Service',
        version: '2.0.0',
        description:
          'Retail store operations: master data, stock by pool and location, stock logs, orders. ' +
          'Errors use the envelope {success:false, message, code, errors[{path, message}]}.',
      },
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <token> (or the bare token)' },
        },
      },
      security: [{ bearer: [] }],
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { url: `${API_PREFIX}/openapi.json` } as never });
  app.get(
    `${API_PREFIX}/openapi.json`,
    {
      schema: { tags: ['operations'], summary: 'This OpenAPI 3.1 document', security: [] },
      config: { access: 'public' },
    },
    async () => app.swagger(),
  );
}
