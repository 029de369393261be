import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Ack } from '../../../shared/schemas.js';
import { DiscountsBody, DiscountsHeaders } from './schema.js';
import { importDiscounts } from './service.js';

export const discountRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/products/discountprices',
    {
      schema: {
        tags: ['products'],
        summary: 'Create, update or remove discount prices (interface §4.9)',
        description:
          'Key: (discount_id, product_number, line_number). Order: is_expire_discounts, then is_delete lines, then upserts, then is_flush. ' +
          'price is the discounted unit price; special_price on GET /products is the lowest one valid now.',
        headers: DiscountsHeaders,
        body: DiscountsBody,
        response: { 200: Ack },
      },
      config: { access: 'master' },
    },
    async (request) => ({
      success: true,
      message: await importDiscounts(request.ctx, request.body, request.headers, request.principal!.name),
    }),
  );
};
