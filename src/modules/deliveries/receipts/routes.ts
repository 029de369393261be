import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { StoreNumberParams } from '../../../shared/schemas.js';
import { ReceiptsPage, ReceiptsQuery, StoreReceiptsQuery } from './schema.js';
import { listReceipts } from './service.js';

export const receiptRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/orders/receipts',
    {
      schema: {
        tags: ['deliveries'],
        summary: 'List receipt orders across stores, for incremental pulls (interface §4.6)',
        querystring: ReceiptsQuery,
        response: { 200: ReceiptsPage },
      },
      config: { access: 'cross-store' },
    },
    (request) => listReceipts(request.ctx, request.query, request.principal!),
  );

  app.get(
    '/stores/:store_number/orders/receipts',
    {
      schema: {
        tags: ['deliveries'],
        summary: 'List receipt orders of one store (interface §4.6)',
        params: StoreNumberParams,
        querystring: StoreReceiptsQuery,
        response: { 200: ReceiptsPage },
      },
      config: { access: 'store' },
    },
    (request) => listReceipts(request.ctx, request.query, request.principal!, request.params.store_number),
  );
};
