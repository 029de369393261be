import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Ack } from '../../shared/schemas.js';
import { clearOrder, updateCustomerOrder } from './picking.js';
import {
  ClearanceBody,
  CrossStoreOrdersBody,
  OrdersPage,
  OrdersQuery,
  OrderUpdateBody,
  StoreOrdersBody,
  StoreParams,
} from './schema.js';
import { importOrders, listOrders } from './service.js';

export const customerOrderRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/stores/:store_number/orders/customerorders',
    {
      schema: {
        tags: ['customer orders'],
        summary: "List the store's customer orders with their lines (interface §4.12, §2.9)",
        params: StoreParams,
        querystring: OrdersQuery,
        response: { 200: OrdersPage },
      },
      config: { access: 'store', reads: 'standby' },
    },
    (request) => listOrders(request.ctx, request.params.store_number, request.query),
  );

  app.post(
    '/stores/:store_number/orders/customerorders',
    {
      schema: {
        tags: ['customer orders'],
        summary: 'Create or update customer orders of one store, by order_number (interface §4.12, PRODUCT §7); atomic',
        params: StoreParams,
        body: StoreOrdersBody,
        response: { 200: Ack },
      },
      config: { access: 'store' },
    },
    async (request) => ({
      success: true,
      message: await importOrders(request.ctx, request.body.orders, request.principal!, request.params.store_number),
    }),
  );

  app.post(
    '/orders/customerorders',
    {
      schema: {
        tags: ['customer orders'],
        summary:
          'Create or update customer orders across stores, by order_number (interface §4.12, PRODUCT §7); atomic',
        body: CrossStoreOrdersBody,
        response: { 200: Ack },
      },
      config: { access: 'cross-store' },
    },
    async (request) => ({
      success: true,
      message: await importOrders(request.ctx, request.body.orders, request.principal!),
    }),
  );

  app.put(
    '/stores/:store_number/orders/customerorder',
    {
      schema: {
        tags: ['customer orders'],
        summary:
          'Claim, pick, unpick, reject or cancel a customer order; picks bind stock through the ledger (PRODUCT §7); atomic',
        params: StoreParams,
        body: OrderUpdateBody,
        response: { 200: Ack },
      },
      config: { access: 'store' },
    },
    async (request) => ({
      success: true,
      message: await updateCustomerOrder(request.ctx, request.params.store_number, request.body, request.principal!),
    }),
  );

  app.post(
    '/customerorders/clearance',
    {
      schema: {
        tags: ['customer orders'],
        summary: 'Hand a customer order over: its bound stock leaves the store, status 5 (PRODUCT §7)',
        body: ClearanceBody,
        response: { 200: Ack },
      },
      config: { access: 'cross-store' },
    },
    async (request) => ({ success: true, message: await clearOrder(request.ctx, request.body, request.principal!) }),
  );
};
