import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  ProductStockParams,
  SingleProductStockQuery,
  SingleProductStockResponse,
  StoreProductStockPage,
  StoreProductStockQuery,
  SurroundingStockList,
  SurroundingStockQuery,
} from './schema.js';
import { listStoreProductStock, productStock, surroundingStock } from './service.js';

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
      config: { access: 'store' },
    },
    (request) => productStock(request.ctx, request.params.store_number, request.params.product_number, request.query),
  );

  app.get(
    '/stores/:store_number/storeproducts/:product_number/surrounding',
    {
      schema: {
        tags: ['store products'],
        summary: 'Stock of one product in the other stores of the area and in the warehouses (interface §4.4, PRODUCT §5)',
        params: ProductStockParams,
        querystring: SurroundingStockQuery,
        response: { 200: SurroundingStockList },
      },
      config: { access: 'store' },
    },
    (request) => surroundingStock(request.ctx, request.params.store_number, request.params.product_number, request.query),
  );
};
