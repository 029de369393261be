// Numbers and moments as a person reads them, in the browser's language.

const quantityFormat = new Intl.NumberFormat(undefined, { maximumFractionDigits: 3 });
const moneyFormat = new Intl.NumberFormat(undefined, { minimumFractionDigits: 2, maximumFractionDigits: 4 });
const momentFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const dayFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });
const timeFormat = new Intl.DateTimeFormat(undefined, { timeStyle: 'medium' });

export const quantity = (value) => (typeof value === 'number' ? quantityFormat.format(value) : '–');
export const money = (value) => (typeof value === 'number' ? moneyFormat.format(value) : '–');

/** A signed change: "+5", "−2" (a real minus sign), "0". */
export const delta = (value) => (value > 0 ? `+${quantity(value)}` : value < 0 ? `−${quantity(-value)}` : quantity(0));

export function moment(iso) {
  if (!iso) return '–';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : momentFormat.format(date);
}

export function time(iso) {
  if (!iso) return '–';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : timeFormat.format(date);
}

/** A moment to the second: the time alone when it is today, else the day and the time (changes, webhooks). */
export function momentToSecond(iso, now = new Date()) {
  if (!iso) return '–';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return String(iso);
  return date.toDateString() === now.toDateString()
    ? timeFormat.format(date)
    : `${dayFormat.format(date)}, ${timeFormat.format(date)}`;
}

export function day(iso) {
  if (!iso) return '–';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : dayFormat.format(date);
}

/** What booked an entry when no reason code says it: `customer_order_picking` → "Customer order picking". */
export function sourceLabel(source) {
  if (!source) return undefined;
  const words = source.replace(/[_-]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** PRODUCT §5: review_status on read. */
export const REVIEW_STATUS = { 0: 'No review needed', 1: 'Pending review', 2: 'Approved', 3: 'Rejected' };

/** docs/customer-orders.md: the life of an order. */
export const ORDER_STATUS = {
  1: 'New',
  2: 'Claimed',
  3: 'Picking',
  4: 'Picked',
  5: 'Collected',
  6: 'Rejected',
  7: 'Cancelled',
};

/** PRODUCT §7 delivery statuses. */
export const DELIVERY_STATUS = { open: 'Open', receiving: 'Receiving', received: 'Received', cancelled: 'Cancelled' };

/** "Pool 2 · Backroom" when the store names its pools (store_stock_pool_N), else "Pool 2". */
export function poolName(store, pool) {
  const name = store?.[`store_stock_pool_${pool}`];
  return name ? `Pool ${pool} · ${name}` : `Pool ${pool}`;
}

export const POOLS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
