import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { conflict, notFound, validationFailed } from '../../shared/errors.js';
import { Ack } from '../../shared/schemas.js';
import {
  ClientInputError,
  ClientNameTakenError,
  createClient,
  listClientSummaries,
  revokeClient,
  rotateClientSecret,
} from './clients.js';
import { ClientList, ClientParams, CreateClientBody, CreatedClient, RotatedSecret } from './schema.js';

const tags = ['clients'];
// Clients are managed like tokens: admin only (PRODUCT §4).
const config = { access: 'admin' as const };

/** The admin API of OAuth2 clients (issue 41; the CLI's `client …` does the same). */
export const clientRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/clients',
    {
      schema: {
        tags,
        summary:
          'Register an OAuth2 client (client credentials, docs/security.md): its client_id and secret are in this answer, the secret only here',
        body: CreateClientBody,
        response: { 201: CreatedClient },
      },
      config,
    },
    async (request, reply) => {
      try {
        const created = await createClient(request.ctx.db, { ...request.body, createdBy: request.principal!.name });
        return reply.code(201).send(created);
      } catch (error) {
        if (error instanceof ClientNameTakenError)
          throw conflict(error.message, [{ path: 'body.name', message: 'is taken' }]);
        if (error instanceof ClientInputError)
          throw validationFailed(error.message, [
            { path: error.message.startsWith('scope') ? 'body.scope' : 'body', message: error.message },
          ]);
        throw error;
      }
    },
  );

  app.get(
    '/clients',
    {
      schema: {
        tags,
        summary: 'Every OAuth2 client, revoked ones included (never a secret)',
        response: { 200: ClientList },
      },
      config,
    },
    async (request) => ({ clients: await listClientSummaries(request.ctx.db) }),
  );

  app.post(
    '/clients/:name/rotate-secret',
    {
      schema: {
        tags,
        summary: 'A new secret for a client (shown only in this answer); the previous one keeps working for 24 h',
        params: ClientParams,
        response: { 200: RotatedSecret },
      },
      config,
    },
    async (request) => {
      const rotated = await rotateClientSecret(request.ctx.db, request.params.name);
      if (!rotated) throw notFound(`No live client named '${request.params.name}'`);
      return rotated;
    },
  );

  app.delete(
    '/clients/:name',
    {
      schema: {
        tags,
        summary:
          'Revoke a client for good: no new token, and its access tokens are refused within a second on every process',
        params: ClientParams,
        response: { 200: Ack },
      },
      config,
    },
    async (request) => {
      if (!(await revokeClient(request.ctx.db, request.params.name)))
        throw notFound(`No live client named '${request.params.name}'`);
      return { success: true, message: `Client '${request.params.name}' revoked` };
    },
  );
};
