import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { BODY_LIMIT_BYTES } from '../../plugins/request-parsing.js';
import { Ack } from '../../shared/schemas.js';
import { ExternalCountingBody, UnresolvedPage, UnresolvedParams, UnresolvedQuery } from './schema.js';
import { listUnresolved, submitCountingLines } from './service.js';

export const externalCountingRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/externalcountinglines',
    {
      bodyLimit: BODY_LIMIT_BYTES,
      schema: {
        tags: ['stock'],
        summary: 'Submit external counting lines: each product becomes a count at CountingDateTime (interface §4.13)',
        body: ExternalCountingBody,
        response: { 200: Ack },
      },
      config: { access: 'cross-store' },
    },
    async (request) => ({
      success: true,
      message: await submitCountingLines(request.ctx, request.body, request.principal!),
    }),
  );

  app.get(
    '/stores/:store_number/externalcountinglines/unresolved',
    {
      schema: {
        tags: ['stock'],
        summary: 'Counting lines whose barcode matched no product (PRODUCT §5)',
        params: UnresolvedParams,
        querystring: UnresolvedQuery,
        response: { 200: UnresolvedPage },
      },
      config: { access: 'store', reads: 'standby' },
    },
    (request) => listUnresolved(request.ctx, request.params.store_number, request.query),
  );
};
