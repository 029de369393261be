import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Ack } from '../../shared/schemas.js';
import { importStores, listStores } from './service.js';
import { StoresBody, StoresImportQuery, StoresPage, StoresQuery } from './schema.js';

export const storeRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/stores',
    {
      schema: {
        tags: ['stores'],
        summary: 'List stores (interface §4.7)',
        querystring: StoresQuery,
        response: { 200: StoresPage },
      },
      config: { access: 'master', listCache: 'stores' },
    },
    (request) => listStores(request.ctx, request.query, request.principal!),
  );

  app.post(
    '/stores',
    {
      schema: {
        tags: ['stores'],
        summary: 'Create or update stores in bulk, by store_number (interface §4.7)',
        querystring: StoresImportQuery,
        body: StoresBody,
        response: { 200: Ack },
      },
      config: { access: 'master', bulkImport: true },
    },
    async (request) => ({
      success: true,
      message: await importStores(
        request.ctx,
        request.body,
        request.query.flush === true,
        request.principal!.name,
        request.rawBodyHash,
      ),
    }),
  );
};
