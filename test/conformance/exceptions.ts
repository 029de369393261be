import type { Problem } from './openapi-compare.js';

/**
 * Where the served contract may differ from the interface document, and why. Each row
 * names the PRODUCT.md section or docs/decisions.md decision that allows it. A row that no
 * longer matches any difference fails the test, so the table stays as short as the truth.
 */

export interface Deviation {
  endpoints: string[];
  /** The field, as openapi-compare names it (`body.products`, `query.page_size`). */
  at: string;
  problem: Problem;
  allowedBy: string;
}

const BULK_WRITES = [
  'POST /stores',
  'POST /products',
  'DELETE /products',
  'POST /products/prices',
  'POST /products/discountprices',
  'POST /products/freefields',
  'POST /categories',
  'POST /stores/{store_number}/storeproducts',
  'PUT /stores/{store_number}/storeproducts',
  'POST /stores/{store_number}/products/stock/storeproductlogs',
  'POST /stores/{store_number}/storeproductlocation/movement',
  'POST /stores/{store_number}/orders/deliveries',
  'POST /orders/deliveries',
];

/** The array each bulk write carries (the interface stars only `reason_codes`). */
const BULK_ARRAY: Record<string, string> = {
  'POST /stores': 'stores',
  'POST /products': 'products',
  'DELETE /products': 'product_number',
  'POST /products/prices': 'prices',
  'POST /products/discountprices': 'discounts',
  'POST /products/freefields': 'free_fields',
  'POST /categories': 'categories',
  'POST /stores/{store_number}/storeproducts': 'products',
  'PUT /stores/{store_number}/storeproducts': 'products',
  'POST /stores/{store_number}/products/stock/storeproductlogs': 'storeproductlog',
  'POST /stores/{store_number}/storeproductlocation/movement': 'body',
  'POST /stores/{store_number}/orders/deliveries': 'orders',
  'POST /orders/deliveries': 'orders',
};

export const DEVIATIONS: Deviation[] = [
  ...BULK_WRITES.map((endpoint) => ({
    endpoints: [endpoint],
    at: `body.${BULK_ARRAY[endpoint]}`,
    problem: 'stricter' as const,
    allowedBy:
      'docs/decisions.md Platform conventions "bulk body": the array of a bulk write is required — a body without it ' +
      'writes nothing, and with flush=true would soft-delete the whole set (PRODUCT §3 flush)',
  })),
  {
    endpoints: ['POST /categories'],
    at: 'body.categories[].category_code',
    problem: 'stricter',
    allowedBy:
      'docs/decisions.md Categories "key": the upsert key (PRODUCT §3 Upserts by category_code); without it a category could never be matched again',
  },
  {
    endpoints: ['POST /products/freefields'],
    at: 'body.free_fields[].free_fields[].key',
    problem: 'stricter',
    allowedBy:
      'docs/decisions.md Products "free fields merge": free fields merge by key (interface §4.9 "existing keys not in the request are unchanged")',
  },
  ...['key', 'value'].map((name) => ({
    endpoints: ['POST /stores/{store_number}/productlists'],
    at: `body.free_fields[].${name}`,
    problem: 'stricter' as const,
    allowedBy:
      'docs/decisions.md Product lists "free fields": a free field is a key with its value; one without either says nothing a list could keep',
  })),
  {
    endpoints: ['POST /stores/{store_number}/productlists/{id}'],
    at: 'path.id',
    problem: 'type',
    allowedBy:
      'docs/decisions.md Product lists "list id in the path": a path value is text on the wire; the document states it as digits ' +
      '(pattern, at most 15) so its length is published like every path value (PRODUCT §3 hostile input)',
  },
  ...['page_size', 'page_start'].map((name) => ({
    endpoints: ['GET /stores', 'GET /products', 'GET /orders/deliveries'],
    at: `query.${name}`,
    problem: 'type' as const,
    allowedBy:
      'PRODUCT §3.1 (page_size clamped 1..1000, page_start 1-based) and §3 Validation ("page_size=50 as string works"): ' +
      'a query value is text on the wire either way; the document states the integer it must hold',
  })),
];

/** Endpoints of the interface not built yet: the test names them, and fails once one is served. */
export const PENDING: { endpoint: string; section: string }[] = [];

/**
 * Served endpoints the interface does not have, with the PRODUCT section that adds them
 * and, where PRODUCT gives it, their shape in the interface's own notation (checked too).
 * `pending: true` marks one PRODUCT adds that is not built yet.
 */
export interface AddedEndpoint {
  endpoint: string;
  allowedBy: string;
  body?: string;
  response?: string;
  pending?: true;
}

export const ADDED: AddedEndpoint[] = [
  { endpoint: 'GET /openapi.json', allowedBy: 'PRODUCT §2 contract: the OpenAPI document' },
  {
    endpoint: 'POST /stores/{store_number}/locations',
    allowedBy: 'PRODUCT §5 Locations',
    body: '{locations*: array of {location_code*: string, location_order: number, tags: array of string, default_stock_pool: number}}',
    response: 'Ack',
  },
  {
    endpoint: 'POST /stores/{store_number}/products/stock/storeproductlogs/review',
    allowedBy: 'PRODUCT §5 Review endpoint',
    body: '{ids*: array of number, approve*: boolean}',
  },
  {
    endpoint: 'GET /stores/{store_number}/externalcountinglines/unresolved',
    allowedBy: 'PRODUCT §5 Unresolved counting lines',
    response:
      'PagedResponse of {barcode: string, counted_quantity: number, counting_datetime: string, received_on: string}',
  },
  {
    endpoint: 'POST /stores/{store_number}/orders/deliveries/{order_number}/receive',
    allowedBy: 'PRODUCT §7 Receiving',
    body: '{lines*: array of {line_number*: number, received_quantity*: number, target_stock_pool: number}, submit: boolean}',
    response: 'Ack',
  },
  {
    endpoint: 'GET /tokens/current',
    allowedBy:
      'docs/decisions.md Console "what a token may do": the store console (issue 16) shows only what the token may use',
    response: '{name*: string, role*: string, stores*: array of string, expires_at*: string}',
  },
  { endpoint: 'GET /events', allowedBy: 'PRODUCT §9 Feed' },
  { endpoint: 'POST /webhooks', allowedBy: 'PRODUCT §9 Webhooks' },
  { endpoint: 'GET /webhooks', allowedBy: 'PRODUCT §9 Webhooks' },
  { endpoint: 'GET /webhooks/{id}', allowedBy: 'PRODUCT §9 Webhooks (one subscription, as the list shows it)' },
  { endpoint: 'DELETE /webhooks/{id}', allowedBy: 'PRODUCT §9 Webhooks' },
  { endpoint: 'POST /webhooks/{id}/resume', allowedBy: 'PRODUCT §9 Webhooks: "resume through the API"' },
  {
    endpoint: 'POST /clients',
    allowedBy: 'PRODUCT §4 OAuth2 client credentials: clients registered by an admin (issue 41, docs/security.md)',
  },
  { endpoint: 'GET /clients', allowedBy: 'PRODUCT §4 OAuth2 client credentials: "managed like tokens" (client list)' },
  {
    endpoint: 'POST /clients/{name}/rotate-secret',
    allowedBy: 'PRODUCT §4 OAuth2 client credentials: client rotate-secret',
  },
  { endpoint: 'DELETE /clients/{name}', allowedBy: 'PRODUCT §4 OAuth2 client credentials: client revoke' },
  {
    endpoint: 'GET /stores/{store_number}/storeproducts/stock.csv',
    allowedBy:
      'docs/decisions.md "Stock list filters and CSV export (issue 43)": a store\'s stock list exported as CSV (RFC 4180)',
  },
  {
    endpoint: 'PUT /stores/{store_number}/photos/{sha256}',
    allowedBy:
      'docs/decisions.md "Loss photos (issue 43)": the photo a loss entry\'s loss_image names is kept by the service (docs/photos.md)',
    response: 'Ack',
  },
  {
    endpoint: 'GET /stores/{store_number}/photos/{sha256}',
    allowedBy: 'docs/decisions.md "Loss photos (issue 43)": the photo an entry\'s exception_image names, read back',
  },
  ...[
    'POST /stores/{store_number}/countingassignments',
    'GET /stores/{store_number}/countingassignments',
    'GET /stores/{store_number}/countingassignments/{id}',
    'POST /stores/{store_number}/countingassignments/{id}/start',
    'GET /stores/{store_number}/countingassignments/{id}/lines',
    'POST /stores/{store_number}/countingassignments/{id}/counts',
    'POST /stores/{store_number}/countingassignments/{id}/submit',
    'POST /stores/{store_number}/countingassignments/{id}/cancel',
  ].map((endpoint) => ({
    endpoint,
    allowedBy:
      'PRODUCT §10 Counting assignments (docs/counting.md, docs/decisions.md "Counting assignments (issue 44)")',
  })),
];

/** Responses the interface leaves "not shown" and PRODUCT decides, in the interface's notation. */
export const DECIDED_RESPONSES: { endpoint: string; allowedBy: string; response: string }[] = [
  {
    endpoint: 'GET /categories',
    allowedBy: 'PRODUCT §6 Category read',
    response:
      'PagedResponse of {id*: number, category_code: string, category_name: string, friendly_category_name: string, ' +
      'parent_category_code: string, is_adjust_min_max: boolean, is_markdown: boolean, markdown_percentages: string, ' +
      'expiration_offset: number, receipt_offset: number, created_on: string, updated_on: string}',
  },
];
