import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import {
  CreatedList,
  CreateListBody,
  CreateListQuery,
  DeleteHeaders,
  DeleteQuery,
  LineUpdateHeaders,
  ListLinesParams,
  ListParams,
  ListsPage,
  ListsQuery,
  UpdateLinesBody,
  UpdateLinesResult,
} from './schema.js';
import { createList, deleteList, listLists, updateLines } from './service.js';

export const productListRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/stores/:store_number/productlists',
    {
      schema: {
        tags: ['product lists'],
        summary:
          "The store's product lists (interface §4.1, §2.1); lines only with show_lines=true, archived lists only with is_archived=true",
        params: ListParams,
        querystring: ListsQuery,
        response: { 200: ListsPage },
      },
      config: { access: 'store', reads: 'standby' },
    },
    (request) => listLists(request.ctx, request.params.store_number, request.query),
  );

  app.post(
    '/stores/:store_number/productlists',
    {
      schema: {
        tags: ['product lists'],
        summary: 'Create a product list with its first lines (interface §4.1, PRODUCT §8); atomic',
        params: ListParams,
        querystring: CreateListQuery,
        body: CreateListBody,
        response: { 200: CreatedList },
      },
      config: { access: 'store' },
    },
    async (request) => ({
      product_list_id: await createList(
        request.ctx,
        request.params.store_number,
        request.body,
        request.query.app_username,
        request.principal!.name,
      ),
    }),
  );

  app.delete(
    '/stores/:store_number/productlists',
    {
      schema: {
        tags: ['product lists'],
        summary:
          'Archive a product list, remove it, or remove its lines (interface §4.1, PRODUCT §8): true when the list exists, false when not',
        params: ListParams,
        querystring: DeleteQuery,
        headers: DeleteHeaders,
        response: { 200: Type.Boolean() },
      },
      config: { access: 'store', apiKey: true },
    },
    (request) => deleteList(request.ctx, request.params.store_number, request.query, request.principal!.name),
  );

  app.post(
    '/stores/:store_number/productlists/:id',
    {
      schema: {
        tags: ['product lists'],
        summary: 'Add or update lines of a product list by product (interface §4.1); atomic',
        params: ListLinesParams,
        headers: LineUpdateHeaders,
        body: UpdateLinesBody,
        response: { 200: UpdateLinesResult },
      },
      config: { access: 'store', apiKey: true },
    },
    (request) =>
      updateLines(
        request.ctx,
        request.params.store_number,
        Number(request.params.id),
        request.body.lines ?? [],
        request.principal!.name,
      ),
  );
};
