import type { Transaction } from 'kysely';
import type { Dialect } from '../db/dialect/types.js';
import type { Database } from '../db/schema.js';
import { POOL_COUNT, type PoolPart } from '../domain/stock-rules.js';
import { ensureStoreProducts } from './store-products.js';
import type { Ledger } from './ledger.js';
import type { LogRecordColumn } from '../db/log-record.js';
import type { BookingStore, EntryDraft } from './types.js';
import { applyEntries, arrivalMoment, type NewLogRow, type Posting } from './postings.js';

export type { EntryDraft } from './types.js';
import type { StockTouch } from './store-product-stamps.js';
import { assertStoreAccess, type Principal } from '../shared/access.js';
import { addMonths, monthLabel, monthStart } from '../db/months.js';
import { unprocessable } from '../shared/errors.js';
import type { FieldError } from '../shared/validation.js';

/**
 * Booking: turns resolved entry drafts into stock_logs rows which, unless they wait for
 * review, carry their postings (postings.ts writes them) — in the caller's transaction. Every stock change of the
 * service (log entries, counts, movements, receipts, picking, resets) books through here,
 * as the principal of its request: a store outside the principal's authority is refused
 * (403) before anything is written (PRODUCT §4), whichever way the request reached it — a
 * path, a body field, or stored data such as a transfer's origin.
 */

/** The pool parts as stored: ten slots, null where the entry does not touch the pool. */
export function poolQuantitiesJson(parts: readonly PoolPart[]): string {
  const pools = new Array<number | null>(POOL_COUNT).fill(null);
  for (const part of parts) pools[part.pool - 1] = (pools[part.pool - 1] ?? 0) + part.quantityMilli;
  return JSON.stringify(pools);
}

export function poolPartsFromJson(json: string): PoolPart[] {
  return (JSON.parse(json) as Array<number | null>).flatMap((quantityMilli, index) =>
    quantityMilli === null ? [] : [{ pool: (index + 1) as PoolPart['pool'], quantityMilli }],
  );
}

/**
 * The columns of a log row the kernel writes itself: every column but the record's
 * (log-record.ts). A new column of stock_logs fails to compile below until it is placed — a
 * log field in the record, where the kernel never sees it.
 */
type KernelColumn = Exclude<keyof NewLogRow, LogRecordColumn | 'id'>;

function logRow(store: BookingStore, draft: EntryDraft, actor: string, now: number): NewLogRow {
  const total = draft.poolParts.reduce((sum, p) => sum + p.quantityMilli, 0);
  const own: { [Column in KernelColumn]-?: NewLogRow[Column] } = {
    store_id: store.id,
    store_number: store.store_number,
    product_id: draft.product.id,
    product_number: draft.product.product_number,
    location_id: draft.location?.id ?? null,
    location_code: draft.location?.location_code ?? null,
    reason_code: draft.reason?.reason_code ?? null,
    reason_code_description: draft.reason?.reason_code_description ?? null,
    modification_at: draft.at,
    is_count: draft.isCount ? 1 : 0,
    is_from_receipt: draft.isFromReceipt ? 1 : 0,
    quantity: total,
    pool_quantities: poolQuantitiesJson(draft.poolParts),
    counted_quantity: draft.isCount ? total : null,
    review_status: draft.pending ? 1 : 0,
    is_applied: draft.pending ? 0 : 1,
    customer_order_number: draft.customerOrderNumber ?? null,
    barcode: draft.product.barcode,
    price: draft.product.price,
    purchase_price: draft.product.purchase_price,
    purchase_unit_quantity: draft.product.purchase_unit_quantity,
    created_on: now,
    updated_on: now,
    created_by: actor,
    modified_by: actor,
  };
  return Object.assign(own, draft.record);
}

/** Where an entry books: enough to derive its postings. */
export interface PostingOrigin {
  storeId: number;
  productId: number;
  locationId: number | null;
  customerOrderNumber: string | null;
  at: number;
  isCount: boolean;
  guard?: { lineIndex: number };
  path?: string;
}

/** The postings of an entry, one per pool part (also when a pending entry is approved). */
export function postingsOf(origin: PostingOrigin, parts: EntryDraft['poolParts']): Posting[] {
  return parts.map((part) => ({
    storeId: origin.storeId,
    productId: origin.productId,
    locationId: origin.locationId ?? 0,
    pool: part.pool,
    orderKey: origin.customerOrderNumber ?? '',
    at: origin.at,
    quantityMilli: part.quantityMilli,
    isCount: origin.isCount,
    guard: origin.guard,
    path: origin.path,
  }));
}

/** Books drafts in order as `by` (its name is the entries' actor); returns the new log ids in the same order. */
export async function bookEntries(
  trx: Transaction<Database>,
  ledger: Ledger,
  store: BookingStore,
  drafts: readonly EntryDraft[],
  by: Principal,
  now: number,
): Promise<number[]> {
  return (await bookEntriesWithMoments(trx, ledger, store, drafts, by, now)).ids;
}

/**
 * bookEntries, with each entry's moment as booked (a service-stamped draft may be booked later
 * than its draft says): with its id, an entry's key (migration 0025), which a receipt line keeps.
 */
export async function bookEntriesWithMoments(
  trx: Transaction<Database>,
  ledger: Ledger,
  store: BookingStore,
  drafts: readonly EntryDraft[],
  by: Principal,
  now: number,
): Promise<{ ids: number[]; moments: number[] }> {
  if (drafts.length === 0) return { ids: [], moments: [] };
  assertStoreAccess(by, store.store_number);
  if (ledger.dialect.ledgerArchive) await refuseArchivedMoments(trx, drafts, now);
  const { dialect } = ledger;
  const actor = by.name;
  const products = new Map(drafts.map((d) => [d.product.id, d.product]));
  // In id order: two first-time posts of the same new products create them in the same order.
  await ensureStoreProducts(
    trx,
    ledger,
    store,
    [...products.values()].sort((a, b) => a.id - b.id),
    now,
    actor,
  );

  const booked = await stampArrivals(trx, dialect, store.id, drafts, now);
  const entries = booked.map((draft) => ({
    row: logRow(store, draft, actor, now),
    postings: draft.pending ? [] : postingsOf(originOf(store.id, draft), draft.poolParts),
  }));
  const touches = booked.filter((d) => !d.pending).map((draft) => touchOf(store.id, draft, actor));
  const ids = await applyEntries(trx, ledger, entries, new Map([[store.id, store.store_number]]), by, now, touches);
  return { ids, moments: booked.map((draft) => draft.at) };
}

/**
 * An entry dated before the ledger's archive boundary (ledger/archive.ts, PostgreSQL) is
 * refused here, before anything is written: a 422 naming each such line's date field as the
 * client sent it (PRODUCT §3; issue 40 item 5), not the database's CHECK (false) partition,
 * which stays the backstop. Only where the ledger archives (PostgreSQL): SQLite keeps every month. An archive's boundary is at most the first moment of the month
 * before the current one, so a booking whose every client-given moment is later (nearly every
 * one) asks nothing.
 */
async function refuseArchivedMoments(
  trx: Transaction<Database>,
  drafts: readonly EntryDraft[],
  now: number,
): Promise<void> {
  const surelyOpen = addMonths(monthStart(Math.max(now, Date.now())), -1);
  const early = drafts.filter((draft) => !draft.onArrival && draft.at < surelyOpen);
  if (early.length === 0) return;
  const row = await trx
    .selectFrom('ledger_archives')
    .select((eb) => eb.fn.max('boundary_at').as('at'))
    .executeTakeFirst();
  if (row?.at === null || row?.at === undefined) return;
  const boundary = Number(row.at);
  // One error per field: entries may share the request's one date field (an external count's CountingDateTime).
  const paths = new Set(
    early.filter((draft) => draft.at < boundary).map((draft) => draft.atPath ?? lineOf(draft.path)),
  );
  const errors: FieldError[] = [...paths].map((path) => ({
    path,
    message: `lies before ${monthLabel(boundary)}: the ledger's months before it are archived (store-ops ledger archive)`,
  }));
  if (errors.length > 0)
    throw unprocessable(
      'Some entries are dated in archived months of the ledger: they can no longer be booked',
      errors,
    );
}

/** `storeproductlog[3].quantity` → `storeproductlog[3]`: the line, where a draft names no date field. */
const lineOf = (path: string | undefined) => (path === undefined ? '' : path.replace(/\.[A-Za-z_]+$/, ''));

const originOf = (storeId: number, draft: EntryDraft): PostingOrigin => ({
  storeId,
  productId: draft.product.id,
  locationId: draft.location?.id ?? null,
  customerOrderNumber: draft.customerOrderNumber ?? null,
  at: draft.at,
  isCount: draft.isCount,
  guard: draft.guard,
  path: draft.path,
});

/**
 * The drafts with the moments they are booked at: a service-stamped draft (`onArrival`) no
 * earlier than the latest entry on any balance this booking touches (postings.ts arrivalMoment,
 * which takes all of their turns — the same set the engine takes next, so no new lock is
 * taken while others are held).
 */
async function stampArrivals(
  trx: Transaction<Database>,
  dialect: Dialect,
  storeId: number,
  drafts: readonly EntryDraft[],
  now: number,
): Promise<readonly EntryDraft[]> {
  const applied = drafts.filter((draft) => !draft.pending);
  if (!applied.some((draft) => draft.onArrival)) return drafts;
  const keys = applied.flatMap((draft) => postingsOf(originOf(storeId, draft), draft.poolParts));
  const latest = await arrivalMoment(trx, dialect, keys, now);
  return drafts.map((draft) => (draft.onArrival ? { ...draft, at: Math.max(draft.at, latest) } : draft));
}

/** What applying an entry means for its store product's bookkeeping (store-product-stamps.ts). */
export const touchOf = (storeId: number, draft: EntryDraft, actor: string): StockTouch => ({
  storeId,
  productId: draft.product.id,
  at: draft.at,
  isCount: draft.isCount,
  isLoss: draft.reason?.is_loss === 1,
  isFromReceipt: draft.isFromReceipt === true,
  by: draft.record.app_user_name ?? actor,
});
