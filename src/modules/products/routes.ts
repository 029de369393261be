import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Ack } from '../../shared/schemas.js';
import { replaceAttribute } from './attributes.js';
import { importFreeFields } from './free-fields.js';
import {
  DeleteProductsBody,
  FreeFieldsBody,
  ProductsBody,
  ProductsEnvelope,
  ProductsImportQuery,
  ProductsQuery,
  ReplaceAttributeBody,
  STRING_ATTRIBUTES,
} from './schema.js';
import { deleteProducts, importProducts, listProducts } from './service.js';

export const productRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/products',
    {
      schema: {
        tags: ['products'],
        summary: 'List products (interface §4.9, §2.12 envelope)',
        description:
          'price is the effective price (a valid price record beats the master price); special_price the lowest discount valid now.',
        querystring: ProductsQuery,
        response: { 200: ProductsEnvelope },
      },
      // Cached per URL while products (with their barcodes, prices, discounts) and stores are
      // unchanged, and only until the next price or discount of the page starts or ends.
      config: { access: 'master', listCache: ['products', 'stores'] },
    },
    (request) => listProducts(request.ctx, request.query, (at) => (request.listCacheValidUntil = at)),
  );

  app.post(
    '/products',
    {
      schema: {
        tags: ['products'],
        summary: 'Create or update products in bulk, by product_number (interface §4.9)',
        description:
          'Every barcode (barcode, barcodes_array, units[].unit_barcode) belongs to one live product: the same barcode on two ' +
          'products of one request is a 400; one held by a live product outside the request is a 422 (send both products to move it).',
        querystring: ProductsImportQuery,
        body: ProductsBody,
        response: { 200: Ack },
      },
      config: { access: 'master' },
    },
    async (request) => ({
      success: true,
      message: await importProducts(request.ctx, request.body, request.query.flush === true, request.principal!),
    }),
  );

  app.delete(
    '/products',
    {
      schema: {
        tags: ['products'],
        summary: 'Soft-delete products by number (interface §4.9); unknown numbers are reported in the message',
        body: DeleteProductsBody,
        response: { 200: Ack },
      },
      config: { access: 'master' },
    },
    async (request) => ({
      success: true,
      message: await deleteProducts(request.ctx, request.body, request.principal!.name),
    }),
  );

  app.put(
    '/products/attributes',
    {
      schema: {
        tags: ['products'],
        summary: 'Replace an attribute value across all live products holding old_value (interface §4.9)',
        description: `Replaceable attributes: ${Object.keys(STRING_ATTRIBUTES).join(', ')}.`,
        body: ReplaceAttributeBody,
        response: { 200: Ack },
      },
      config: { access: 'master' },
    },
    async (request) => ({
      success: true,
      message: await replaceAttribute(request.ctx, request.body, request.principal!.name),
    }),
  );

  app.post(
    '/products/freefields',
    {
      schema: {
        tags: ['products'],
        summary: "Merge free fields by key into products' free fields (interface §4.9)",
        body: FreeFieldsBody,
        response: { 200: Ack },
      },
      config: { access: 'master' },
    },
    async (request) => ({
      success: true,
      message: await importFreeFields(request.ctx, request.body, request.principal!.name),
    }),
  );
};
