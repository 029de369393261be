import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { stockCsv } from './stock-csv.js';
import {
  ProductStockParams,
  StockCsvParams,
  StockCsvQuery,
  StockCsvResponse,
  SingleProductStockQuery,
  SingleProductStockResponse,
  StoreProductStockPage,
  StoreProductStockQuery,
  SurroundingStockList,
  SurroundingStockQuery,
} from './schema.js';
import { listStoreProductStock, productStockBody, surroundingStock } from './service.js';

export const storeStockRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/storeproducts/stock',
    {
      schema: {
        tags: ['store products'],
        summary: 'List store products with their stock (interface §4.4, §2.5)',
        querystring: StoreProductStockQuery,
        response: { 200: StoreProductStockPage },
      },
      config: { access: 'cross-store' },
    },
    (request) => listStoreProductStock(request.ctx, request.query, request.principal!),
  );

  // The store's whole filtered list as one CSV file (issue 43): a store path, so a store token
  // exports its own stores only (403) and an unknown store is a 404 (PRODUCT §4).
  app.get(
    '/stores/:store_number/storeproducts/stock.csv',
    {
      schema: {
        tags: ['store products'],
        summary:
          "A store's stock list, every page of it, as RFC 4180 CSV: the filters of GET /storeproducts/stock (docs/stock.md)",
        params: StockCsvParams,
        querystring: StockCsvQuery,
        response: { 200: StockCsvResponse },
      },
      config: { access: 'store' },
    },
    async (request, reply) => {
      const csv = await stockCsv(request.ctx, request.params.store_number, request.query);
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', csv.contentDisposition)
        .send(csv.body as never);
    },
  );

  app.get(
    '/stores/:store_number/products/:product_number/stock',
    {
      schema: {
        tags: ['store products'],
        summary: 'Stock of one product in a store, by product number or any barcode (interface §4.4, PRODUCT §5)',
        params: ProductStockParams,
        querystring: SingleProductStockQuery,
        response: { 200: SingleProductStockResponse },
      },
      config: { access: 'store', reads: 'standby' },
    },
    async (request, reply) => {
      // The body comes serialized by this route's own response schema (reply.serialize),
      // possibly from the answer cache; a string with a JSON content type is sent as it is.
      const body = await productStockBody(
        request.ctx,
        request.params.store_number,
        request.params.product_number,
        request.query,
        (response) => String(reply.serialize(response)),
      );
      return reply.type('application/json; charset=utf-8').send(body as never);
    },
  );

  app.get(
    '/stores/:store_number/storeproducts/:product_number/surrounding',
    {
      schema: {
        tags: ['store products'],
        summary:
          'Stock of one product in the other stores of the area and in the warehouses (interface §4.4, PRODUCT §5)',
        params: ProductStockParams,
        querystring: SurroundingStockQuery,
        response: { 200: SurroundingStockList },
      },
      config: { access: 'store', reads: 'standby' },
    },
    (request) =>
      surroundingStock(request.ctx, request.params.store_number, request.params.product_number, request.query),
  );
};
