import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Ack } from '../../shared/schemas.js';
import { listStockLogs, postStockLogs, reviewStockLogs } from './service.js';
import {
  ReviewBody,
  StockLogsAck,
  StockLogsBody,
  StockLogsPage,
  StockLogsPostQuery,
  StockLogsQuery,
  StoreParams,
} from './schema.js';

export const stockLogRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/stores/:store_number/products/stock/storeproductlogs',
    {
      schema: {
        tags: ['stock'],
        summary: 'Record stock log entries: deltas, counts, losses (interface §4.8); atomic',
        params: StoreParams,
        querystring: StockLogsPostQuery,
        body: StockLogsBody,
        response: { 200: StockLogsAck },
      },
      config: { access: 'store' },
    },
    async (request) => {
      const { ids, message } = await postStockLogs(
        request.ctx,
        request.params.store_number,
        request.body,
        request.query,
        request.principal!,
      );
      return { success: true, data: ids, message };
    },
  );

  app.post(
    '/stores/:store_number/products/stock/storeproductlogs/review',
    {
      schema: {
        tags: ['stock'],
        summary: 'Approve (apply) or reject entries pending review (PRODUCT §5)',
        params: StoreParams,
        body: ReviewBody,
        response: { 200: Ack },
      },
      config: { access: 'store' },
    },
    async (request) => ({
      success: true,
      message: await reviewStockLogs(request.ctx, request.params.store_number, request.body, request.principal!),
    }),
  );

  app.get(
    '/products/stock/storeproductlogs',
    {
      schema: {
        tags: ['stock'],
        summary: 'List stock log entries across stores (interface §4.8)',
        querystring: StockLogsQuery,
        response: { 200: StockLogsPage },
      },
      config: { access: 'cross-store' },
    },
    (request) => listStockLogs(request.ctx, request.query, request.principal!),
  );
};
