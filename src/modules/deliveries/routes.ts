import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Ack } from '../../shared/schemas.js';
import { receiveDelivery } from './receiving.js';
import {
  ContainerOverrideHeaders,
  CrossStoreDeliveriesBody,
  DeliveriesPage,
  DeliveriesQuery,
  DeliveryParams,
  ReceiveBody,
  ReceiveQuery,
  StoreDeliveriesBody,
  StoreParams,
} from './schema.js';
import { importDeliveries, listDeliveries } from './service.js';

export const deliveryRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/stores/:store_number/orders/deliveries',
    {
      schema: {
        tags: ['deliveries'],
        summary: 'Create or update delivery orders of one store, by order_number (interface §4.3, PRODUCT §7); atomic',
        params: StoreParams,
        headers: ContainerOverrideHeaders,
        body: StoreDeliveriesBody,
        response: { 200: Ack },
      },
      config: { access: 'store' },
    },
    async (request) => ({
      success: true,
      message: await importDeliveries(
        request.ctx,
        request.body.orders,
        request.headers.container_override === true,
        request.principal!,
        request.params.store_number,
      ),
    }),
  );

  app.post(
    '/orders/deliveries',
    {
      schema: {
        tags: ['deliveries'],
        summary: 'Create or update delivery orders across stores, by order_number (interface §4.3, PRODUCT §7); atomic',
        headers: ContainerOverrideHeaders,
        body: CrossStoreDeliveriesBody,
        response: { 200: Ack },
      },
      config: { access: 'cross-store' },
    },
    async (request) => ({
      success: true,
      message: await importDeliveries(
        request.ctx,
        request.body.orders,
        request.headers.container_override === true,
        request.principal!,
      ),
    }),
  );

  app.get(
    '/orders/deliveries',
    {
      schema: {
        tags: ['deliveries'],
        summary: 'List delivery orders with their lines, ordered vs received (interface §4.3)',
        querystring: DeliveriesQuery,
        response: { 200: DeliveriesPage },
      },
      config: { access: 'cross-store', reads: 'standby' },
    },
    (request) => listDeliveries(request.ctx, request.query, request.principal!),
  );

  app.post(
    '/stores/:store_number/orders/deliveries/:order_number/receive',
    {
      schema: {
        tags: ['deliveries'],
        summary: 'Receive delivery lines into stock, and optionally submit the delivery (PRODUCT §7); atomic',
        params: DeliveryParams,
        querystring: ReceiveQuery,
        body: ReceiveBody,
        response: { 200: Ack },
      },
      config: { access: 'store' },
    },
    async (request) => ({
      success: true,
      message: await receiveDelivery(
        request.ctx,
        request.params.store_number,
        request.params.order_number,
        request.body,
        request.query,
        request.principal!,
      ),
    }),
  );
};
