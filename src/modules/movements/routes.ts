import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Ack } from '../../shared/schemas.js';
import { MovementBody, MovementParams, MovementQuery } from './schema.js';
import { moveStock } from './service.js';

export const movementRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/stores/:store_number/storeproductlocation/movement',
    {
      schema: {
        tags: ['stock'],
        summary:
          'Move stock between locations, pools and order-bound stock (interface §4.11, deprecated but served); atomic',
        deprecated: true,
        params: MovementParams,
        querystring: MovementQuery,
        body: MovementBody,
        response: { 200: Ack },
      },
      config: { access: 'store' },
    },
    async (request) => ({
      success: true,
      message: await moveStock(
        request.ctx,
        request.params.store_number,
        request.body,
        request.query,
        request.principal!,
      ),
    }),
  );
};
