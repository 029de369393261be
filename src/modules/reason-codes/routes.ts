import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Ack } from '../../shared/schemas.js';
import { importReasonCodes, listReasonCodes } from './service.js';
import { ReasonCodeList, ReasonCodesBody, ReasonCodesImportQuery, ReasonCodesQuery } from './schema.js';

export const reasonCodeRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/reasoncodes',
    {
      schema: {
        tags: ['reason codes'],
        summary: 'List reason codes (interface §4.5)',
        querystring: ReasonCodesQuery,
        response: { 200: ReasonCodeList },
      },
      config: { access: 'master', listCache: 'reason_codes' },
    },
    (request) => listReasonCodes(request.ctx, request.query),
  );

  app.post(
    '/reasoncodes',
    {
      schema: {
        tags: ['reason codes'],
        summary: 'Create or update reason codes in bulk, by reason_code (interface §4.5)',
        querystring: ReasonCodesImportQuery,
        body: ReasonCodesBody,
        response: { 200: Ack },
      },
      config: { access: 'master', bulkImport: true },
    },
    async (request) => ({
      success: true,
      message: await importReasonCodes(
        request.ctx,
        request.body,
        request.query.flush === true,
        request.principal!.name,
        request.rawBodyHash,
      ),
    }),
  );
};
