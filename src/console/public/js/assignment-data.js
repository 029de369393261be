// What the two counting-assignment views share (PRODUCT §10, docs/counting.md): the routes, the
// statuses in words, an assignment's scope and limits in words, every line of an assignment
// (all pages), the store's locations in walking order, and the products of the lines, by which
// a scanned barcode is matched to its lines on the device.

import { path } from './api.js';

export const ASSIGNMENT_STATUS = {
  open: 'Open',
  counting: 'Counting',
  submitted: 'Submitted',
  closed: 'Closed',
  cancelled: 'Cancelled',
};

export const LINE_STATUS = {
  not_counted: 'to count',
  counted: 'counted',
  booked: 'booked',
  pending: 'pending review',
  approved: 'approved',
  rejected: 'rejected',
};

/** Lines read per request (the API's largest page) and at most this many pages. */
const LINE_PAGE = 1000;
const MAX_LINE_PAGES = 50;
/** Product numbers per products read: the address stays short. */
const PRODUCTS_PER_READ = 100;

export const assignmentsPath = (ctx) => path('/stores/', ctx.store.store_number, '/countingassignments');
export const assignmentPath = (ctx, id, step = '') =>
  path('/stores/', ctx.store.store_number, '/countingassignments/', id, step);

/** "Assignment 7 · INV-2026-12-A" */
export function assignmentName(assignment) {
  const code = assignment.counting_assignment_code;
  return `Assignment ${assignment.counting_assignment_id}${code ? ` · ${code}` : ''}`;
}

/** What is counted, in words. */
export function scopeText(scope = {}) {
  if (scope.whole_store) return 'the whole store';
  const parts = [];
  if (scope.counting_assignment_code) parts.push(`store products with counting code ${scope.counting_assignment_code}`);
  if (scope.product_numbers?.length) parts.push(`products ${scope.product_numbers.join(', ')}`);
  if (scope.category_codes?.length) parts.push(`categories ${scope.category_codes.join(', ')}`);
  if (parts.length === 0 && scope.location_codes?.length) return `everything at ${scope.location_codes.join(', ')}`;
  const what = parts.join('; ') || 'nothing';
  return scope.location_codes?.length ? `${what}, at ${scope.location_codes.join(', ')}` : what;
}

/** Kind, blind, due, in words: "Full count · blind · due 9 Dec 2026". */
export function kindText(assignment) {
  return [
    assignment.kind === 'full' ? 'Full count (uncounted lines become zero)' : 'Spot count',
    assignment.blind ? 'blind' : null,
    assignment.allow_extra_lines ? 'extra lines allowed' : null,
  ]
    .filter(Boolean)
    .join(' · ');
}

/** Every line of an assignment, page after page (kept on the device like every read). */
export async function allLines(ctx, id, status) {
  const lines = [];
  let total = 0;
  for (let page = 1; page <= MAX_LINE_PAGES; page += 1) {
    const answer = await ctx.api.get(assignmentPath(ctx, id, '/lines'), {
      status,
      page_size: LINE_PAGE,
      page_start: page,
    });
    lines.push(...(answer?.list ?? []));
    total = answer?.total_count ?? lines.length;
    if (answer?.next_page === null || answer?.next_page === undefined || (answer?.list ?? []).length === 0) break;
  }
  return { lines, total };
}

/** The store's locations with their walking order (`location_order`), by code. */
export async function locationsInOrder(ctx) {
  const page = await ctx.api.get(path('/stores/', ctx.store.store_number, '/locations'), { page_size: 1000 });
  const list = (page?.list ?? []).map((location) => ({
    code: location.location_code,
    order: typeof location.location_order === 'number' ? location.location_order : Number.MAX_SAFE_INTEGER,
  }));
  list.sort((a, b) => a.order - b.order || a.code.localeCompare(b.code));
  return list;
}

/** Lines in walking order: by their location's order, lines without a location last, then product and pool. */
export function walkingOrder(lines, locations) {
  const rank = new Map(locations.map((location, index) => [location.code, index]));
  const at = (line) =>
    line.location_code === null || line.location_code === undefined
      ? Number.MAX_SAFE_INTEGER
      : (rank.get(line.location_code) ?? Number.MAX_SAFE_INTEGER - 1);
  return [...lines].sort(
    (a, b) =>
      at(a) - at(b) ||
      String(a.location_code ?? '').localeCompare(String(b.location_code ?? '')) ||
      a.product_number.localeCompare(b.product_number) ||
      a.pool - b.pool,
  );
}

/**
 * The products of the lines (`GET /products`, 100 numbers a read), and an index of every code
 * that names one of them: its number, its barcode and `barcodes_array`, its unit barcodes
 * (a unit barcode counts `unit_quantity` items a scan, as the API does). Codes upper-cased.
 */
export async function productsOf(ctx, productNumbers) {
  const numbers = [...new Set(productNumbers)];
  const products = new Map();
  const codes = new Map();
  for (const number of numbers) codes.set(number.toUpperCase(), { productNumber: number, unit: 1 });
  const reads = [];
  for (let i = 0; i < numbers.length; i += PRODUCTS_PER_READ) {
    const chunk = numbers.slice(i, i + PRODUCTS_PER_READ);
    reads.push(ctx.api.get('/products', { product_number: chunk, page_size: chunk.length }));
  }
  let complete = true;
  for (const answer of await Promise.allSettled(reads)) {
    if (answer.status !== 'fulfilled') {
      complete = false;
      continue;
    }
    for (const product of answer.value?.records ?? []) {
      products.set(product.product_number, product);
      const name = (code, unit = 1) => {
        if (code && !codes.has(code.toUpperCase()))
          codes.set(code.toUpperCase(), { productNumber: product.product_number, unit });
      };
      name(product.barcode);
      for (const code of String(product.barcodes_array ?? '').split(',')) name(code.trim());
      for (const unit of product.units ?? []) name(unit.unit_barcode, unit.unit_quantity);
    }
  }
  return { products, codes, complete };
}
