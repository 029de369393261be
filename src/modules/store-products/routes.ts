import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Ack, StoreNumberParams } from '../../shared/schemas.js';
import { StoreProductsPostBody, StoreProductsPutBody } from './schema.js';
import { upsertStoreProducts } from './service.js';

export const storeProductRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/stores/:store_number/storeproducts',
    {
      schema: {
        tags: ['store products'],
        summary: 'Create or update store products, by product_number (interface §4.4, PRODUCT §5)',
        params: StoreNumberParams,
        body: StoreProductsPostBody,
        response: { 200: Ack },
      },
      config: { access: 'store' },
    },
    async (request) => ({
      success: true,
      message: await upsertStoreProducts(
        request.ctx,
        request.params.store_number,
        request.body,
        'POST',
        request.principal!.name,
      ),
    }),
  );

  app.put(
    '/stores/:store_number/storeproducts',
    {
      schema: {
        tags: ['store products'],
        summary: 'Update (or create) store product properties, by product_number (interface §4.4, PRODUCT §5)',
        params: StoreNumberParams,
        body: StoreProductsPutBody,
        response: { 200: Ack },
      },
      config: { access: 'store' },
    },
    async (request) => ({
      success: true,
      message: await upsertStoreProducts(
        request.ctx,
        request.params.store_number,
        request.body,
        'PUT',
        request.principal!.name,
      ),
    }),
  );
};
