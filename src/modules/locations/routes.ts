import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Ack, StoreNumberParams } from '../../shared/schemas.js';
import {
  LocationParams,
  LocationProductsHeaders,
  LocationProductsPage,
  LocationProductsQuery,
  LocationsBody,
  LocationsPage,
  LocationsQuery,
  TaggedLocationProductsQuery,
} from './schema.js';
import { importLocations, listLocations, listProductsAtLocation, listProductsAtTaggedLocations } from './service.js';

export const locationRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/stores/:store_number/locations',
    {
      schema: {
        tags: ['locations'],
        summary: 'Create or update locations, by location_code within the store (PRODUCT §5 Locations)',
        params: StoreNumberParams,
        body: LocationsBody,
        response: { 200: Ack },
      },
      config: { access: 'store' },
    },
    async (request) => ({
      success: true,
      message: await importLocations(request.ctx, request.params.store_number, request.body, request.principal!.name),
    }),
  );

  app.get(
    '/stores/:store_number/locations',
    {
      schema: {
        tags: ['locations'],
        summary: 'List the locations of a store with their stock (interface §4.2)',
        params: StoreNumberParams,
        querystring: LocationsQuery,
        response: { 200: LocationsPage },
      },
      config: { access: 'store', reads: 'standby' },
    },
    (request) => listLocations(request.ctx, request.params.store_number, request.query),
  );

  // Registered before the parametric route; find-my-way prefers the static segment anyway.
  app.get(
    '/stores/:store_number/locations/products',
    {
      schema: {
        tags: ['locations'],
        summary: 'Products with stock at the locations named by location_code and/or jsonTag (interface §4.2)',
        params: StoreNumberParams,
        querystring: TaggedLocationProductsQuery,
        headers: LocationProductsHeaders,
        response: { 200: LocationProductsPage },
      },
      config: { access: 'store', reads: 'standby' },
    },
    (request) => listProductsAtTaggedLocations(request.ctx, request.params.store_number, request.query),
  );

  app.get(
    '/stores/:store_number/locations/:location_code/products',
    {
      schema: {
        tags: ['locations'],
        summary: 'Products with stock at one location (interface §4.2)',
        params: LocationParams,
        querystring: LocationProductsQuery,
        headers: LocationProductsHeaders,
        response: { 200: LocationProductsPage },
      },
      config: { access: 'store', reads: 'standby' },
    },
    (request) =>
      listProductsAtLocation(request.ctx, request.params.store_number, request.params.location_code, request.query),
  );
};
