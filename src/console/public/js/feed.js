// The change feed (PRODUCT §9) as the console reads it: where its end is, where it starts
// again after retention, which types a filter means, and each event as a sentence.
// No DOM here: test/console/feed.test.ts runs this module in Node against a model feed.

import { DELIVERY_STATUS, ORDER_STATUS, quantity } from './format.js';

export const EVENTS_PATH = '/events';

/** The feed's types, as src/modules/events/schema.ts lists them (the test compares the two). */
export const MASTER_RESOURCES = [
  'store',
  'product',
  'category',
  'reason_code',
  'price',
  'discount',
  'location',
  'store_product',
  'product_list',
];
export const GOODS_TYPES = ['delivery.changed', 'customer_order.changed', 'receipt.created', 'receipt.changed'];
export const MASTER_TYPES = MASTER_RESOURCES.flatMap((resource) => [`${resource}.upserted`, `${resource}.deleted`]);
export const EVENT_TYPES = [
  'stock.changed',
  'receipt.created',
  'receipt.changed',
  'delivery.changed',
  'customer_order.changed',
  'counting_assignment.changed',
  ...MASTER_TYPES,
];

/** The type filter's groups; a single type is chosen by its own name. `types` undefined: every type. */
export const TYPE_GROUPS = [
  { value: 'all', label: 'All changes', types: undefined },
  { value: 'stock', label: 'Stock', types: ['stock.changed'] },
  { value: 'goods', label: 'Deliveries, orders and receipts', types: GOODS_TYPES },
  { value: 'counting', label: 'Counting assignments', types: ['counting_assignment.changed'] },
  { value: 'master', label: 'Master data', types: MASTER_TYPES },
];

/** The filter a `types` parameter names: a group, one known type, or else every type. */
export function typeChoice(value) {
  const group = TYPE_GROUPS.find((choice) => choice.value === value);
  if (group) return group;
  if (EVENT_TYPES.includes(value)) return { value, label: value, types: [value] };
  return TYPE_GROUPS[0];
}

// ---- the feed's ends ------------------------------------------------------------------------
//
// The feed answers no "last sequence" of its own, but its contract draws the line: an `after`
// beyond the last sequence given is refused with 400 naming `query.after`, one older than
// retention is 410 GONE, anything in between is a page. One-event reads (`limit=1`) galloping
// out from a known point and then halving the gap find the end in about 2·log2(distance)
// calls — some 50 for ten million events — instead of paging through 30 days of them.

/** Where `after` stands: 'kept' (a page; `next` is its next_after, never past the end), 'past' the end, or 'gone'. */
async function probe(get, after) {
  try {
    const page = await get(EVENTS_PATH, { after, limit: 1 });
    return { state: 'kept', next: Math.max(after, Number(page.next_after) || 0) };
  } catch (failure) {
    if (isGone(failure)) return { state: 'gone' };
    if (isPastEnd(failure)) return { state: 'past' };
    throw failure;
  }
}

/** A 410: the cursor is older than the oldest event kept. */
export const isGone = (failure) => failure?.code === 'GONE';

/** A 400 naming `query.after`: the cursor is beyond the last sequence given (another database, say). */
export const isPastEnd = (failure) =>
  failure?.code === 'VALIDATION_FAILED' &&
  Array.isArray(failure.fields) &&
  failure.fields.some((field) => String(field).startsWith('query.after'));

/**
 * The last sequence given: the `after` that reads from the feed's current end. `from` is a
 * sequence seen earlier (the search starts there, a call or two when little has happened);
 * one past the end is forgotten and the search starts from 0.
 * @param {(route: string, query: object) => Promise<any>} get the API's GET
 */
export async function findEnd(get, from = 0) {
  let low = 0;
  const start = await probe(get, from);
  if (start.state === 'kept') low = start.next;
  else if (start.state === 'gone') low = from;
  // 'past': `from` came from elsewhere; gallop from 0.
  let high;
  for (let step = 1; high === undefined; step *= 2) {
    const at = await probe(get, low + step);
    if (at.state === 'past') high = low + step;
    else low = at.state === 'kept' ? at.next : low + step;
  }
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    const at = await probe(get, middle);
    if (at.state === 'past') high = middle;
    else low = at.state === 'kept' ? Math.max(middle, at.next) : middle;
  }
  return low;
}

/**
 * The `after` that reads from the oldest event kept, once `after = gone` was answered 410:
 * the number the 410 names (PRODUCT §9: it names the oldest sequence kept), else searched for.
 */
export async function findOldestKept(get, failure, gone) {
  const named = /oldest event kept is sequence (\d+)/.exec(String(failure?.message ?? failure?.sentence ?? ''));
  if (named) return Math.max(gone, Number(named[1]) - 1);
  let low = gone; // answered 410
  let high = await findEnd(get, gone); // the end is always kept
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if ((await probe(get, middle)).state === 'gone') low = middle;
    else high = middle;
  }
  return high;
}

// ---- events as sentences --------------------------------------------------------------------

const RESOURCE_NAMES = {
  store: 'Store',
  product: 'Product',
  category: 'Category',
  reason_code: 'Reason code',
  price: 'Price',
  discount: 'Discount',
  location: 'Location',
  store_product: 'Store product',
  product_list: 'Product list',
};

/** "1, 2, 3" or "1, 2, 3, 4, 5 and 7 more". */
function listed(values, most = 5) {
  const shown = values.slice(0, most).join(', ');
  return values.length > most ? `${shown} and ${values.length - most} more` : shown;
}

const text = (value) => (value === null || value === undefined || value === '' ? '–' : String(value));

/** What a master-data record is called by its keys: "Product 100200", "Price P-1 of product 100200". */
function recordName(resource, data) {
  const name = RESOURCE_NAMES[resource] ?? resource;
  switch (resource) {
    case 'store':
      return `Store ${text(data.store_number)}`;
    case 'product':
    case 'store_product':
      return `${name} ${text(data.product_number)}`;
    case 'category':
      return `Category ${text(data.category_code)}`;
    case 'reason_code':
      return `Reason code ${text(data.reason_code)}`;
    case 'price':
      return `Price ${text(data.price_id)} of product ${text(data.product_number)}`;
    case 'discount':
      return `Discount ${text(data.discount_id)}${data.line_number !== undefined && data.line_number !== null ? ` line ${data.line_number}` : ''} of product ${text(data.product_number)}`;
    case 'location':
      return `Location ${text(data.location_code)}`;
    case 'product_list':
      return `Product list ${text(data.product_list_id)}${data.name ? ` “${data.name}”` : ''}${data.is_archived ? ' (archived)' : ''}`;
    default:
      return `${name} ${keyValues(data)}`;
  }
}

/** Every field of an unknown event's data: "a: 1, b: x". */
function keyValues(data) {
  return Object.entries(data ?? {})
    .map(
      ([key, value]) => `${key}: ${typeof value === 'object' && value !== null ? JSON.stringify(value) : text(value)}`,
    )
    .join(', ');
}

/** One event as a sentence a person reads: "100200 @ A-01 pool 1 → 12.5 (entries 4711, 4712)". */
export function summary(event) {
  const data = event.data ?? {};
  switch (event.type) {
    case 'stock.changed': {
      const where = data.location_code ? `@ ${data.location_code}` : 'not at a location,';
      const order = data.customer_order_number ? ` for order ${data.customer_order_number}` : '';
      const ids = Array.isArray(data.log_entry_ids) ? data.log_entry_ids : [];
      const entries = ids.length === 0 ? '' : ` (${ids.length === 1 ? 'entry' : 'entries'} ${listed(ids)})`;
      return `${text(data.product_number)} ${where} pool ${text(data.pool)}${order} → ${quantity(data.quantity)}${entries}`;
    }
    case 'delivery.changed':
      return `Delivery ${text(data.order_number)}: ${DELIVERY_STATUS[data.status] ?? text(data.status)}`;
    case 'customer_order.changed':
      return `Customer order ${text(data.order_number)}: ${ORDER_STATUS[data.status_id] ?? `status ${text(data.status_id)}`}`;
    case 'counting_assignment.changed': {
      // Blind for a store token: the feed leaves the variance out, and so does the sentence.
      const progress = data.progress ?? {};
      const code = data.counting_assignment_code ? ` (${data.counting_assignment_code})` : '';
      const counted =
        typeof progress.lines_total === 'number' && data.status !== 'open'
          ? `, ${quantity(progress.lines_counted ?? 0)} of ${quantity(progress.lines_total)} lines counted`
          : '';
      return `Counting assignment ${text(data.counting_assignment_id)}${code}: ${text(data.status)}${counted}`;
    }
    case 'receipt.created':
    case 'receipt.changed':
      return `Receipt of ${text(data.order_number)} ${event.type === 'receipt.created' ? 'created' : 'changed'}${data.is_submitted ? ', submitted' : ''}`;
  }
  const master = /^([a-z_]+)\.(upserted|deleted)$/.exec(event.type ?? '');
  if (master && RESOURCE_NAMES[master[1]])
    return `${recordName(master[1], data)} ${master[2] === 'deleted' ? 'deleted' : 'created or changed'}`;
  return keyValues(data) || '–';
}
