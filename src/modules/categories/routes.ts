import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Ack } from '../../shared/schemas.js';
import { importCategories, listCategories } from './service.js';
import { CategoriesBody, CategoriesImportQuery, CategoriesPage, CategoriesQuery } from './schema.js';

export const categoryRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/categories',
    {
      schema: {
        tags: ['categories'],
        summary: 'List categories (interface §4.10)',
        querystring: CategoriesQuery,
        response: { 200: CategoriesPage },
      },
      config: { access: 'master', listCache: 'categories' },
    },
    (request) => listCategories(request.ctx, request.query),
  );

  app.post(
    '/categories',
    {
      schema: {
        tags: ['categories'],
        summary: 'Create or update categories in bulk, by category_code (interface §4.10)',
        querystring: CategoriesImportQuery,
        body: CategoriesBody,
        response: { 200: Ack },
      },
      config: { access: 'master', bulkImport: true },
    },
    async (request) => ({
      success: true,
      message: await importCategories(
        request.ctx,
        request.body,
        request.query.flush === true,
        request.principal!.name,
        request.rawBodyHash,
      ),
    }),
  );
};
