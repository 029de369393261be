import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Ack } from '../../../shared/schemas.js';
import { PricesBody } from './schema.js';
import { importPrices } from './service.js';

export const priceRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/products/prices',
    {
      schema: {
        tags: ['products'],
        summary: 'Create or update prices, by price_id (interface §4.9)',
        description:
          'Scope: store_number (a known store) > price_group (a store price_line_id) > country_code > none (chain). ' +
          'The effective price is the valid one (valid_from <= now < valid_to) of the most specific scope, latest valid_from first.',
        body: PricesBody,
        response: { 200: Ack },
      },
      config: { access: 'master' },
    },
    async (request) => ({
      success: true,
      message: await importPrices(request.ctx, request.body, request.principal!.name),
    }),
  );
};
