import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Ack } from '../../shared/schemas.js';
import { CreatedSubscription, CreateWebhookBody, Subscription, SubscriptionList, WebhookParams } from './schema.js';
import {
  createSubscription,
  deleteSubscription,
  getSubscription,
  listSubscriptions,
  resumeSubscription,
} from './service.js';

const tags = ['webhooks'];

// Admin and integration tokens only, reads included (PRODUCT §9): a subscription names where
// the service sends data.
const config = { access: 'integration' as const };

export const webhookRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/webhooks',
    {
      schema: {
        tags,
        summary:
          'Subscribe a URL to the change feed: signed batches of events are POSTed to it in order (PRODUCT §9, docs/events.md); the secret is shown only in this answer',
        body: CreateWebhookBody,
        response: { 201: CreatedSubscription },
      },
      config,
    },
    async (request, reply) => {
      const created = await createSubscription(
        request.ctx.handle,
        request.ctx.config,
        request.principal!,
        request.body,
      );
      return reply.code(201).send(created);
    },
  );

  app.get(
    '/webhooks',
    {
      schema: {
        tags,
        summary: 'Every webhook subscription with its delivery health (never a secret)',
        response: { 200: SubscriptionList },
      },
      config,
    },
    (request) => listSubscriptions(request.ctx.handle),
  );

  app.get(
    '/webhooks/:id',
    {
      schema: {
        tags,
        summary: 'One webhook subscription with its delivery health (never its secret)',
        params: WebhookParams,
        response: { 200: Subscription },
      },
      config,
    },
    (request) => getSubscription(request.ctx.handle, Number(request.params.id)),
  );

  app.delete(
    '/webhooks/:id',
    {
      schema: {
        tags,
        summary: 'Remove a webhook subscription (a delivery already under way may still arrive)',
        params: WebhookParams,
        response: { 200: Ack },
      },
      config,
    },
    (request) => deleteSubscription(request.ctx.handle, Number(request.params.id)),
  );

  app.post(
    '/webhooks/:id/resume',
    {
      schema: {
        tags,
        summary:
          'Resume a paused subscription (or retry a failing one now): the batch it was sending is sent again at once',
        params: WebhookParams,
        response: { 200: Subscription },
      },
      config,
    },
    (request) => resumeSubscription(request.ctx.handle, Number(request.params.id)),
  );
};
