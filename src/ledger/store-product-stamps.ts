import { sql, type Transaction } from 'kysely';
import type { Dialect, RowsSourceColumn } from '../db/dialect/types.js';
import type { Database } from '../db/schema.js';

/**
 * What a stock change stamps on its store product, in one update per request and store
 * product (docs/decisions.md "stock versions"):
 * - `stock_version`, which the single-product read cache compares (store-stock/answer-cache.ts);
 * - `stock_modified_at`, interface §2.5 last_stock_modified_datetime;
 * - the latest count, loss and receipt with who did it (§2.5), each only when newer than
 *   what is recorded.
 * Called by the posting engine (postings.ts applyPostings) — the only writer of balances —
 * so no path that changes stock can leave these behind.
 */

/** What applying an entry means for its store product's bookkeeping. */
export interface StockTouch {
  storeId: number;
  productId: number;
  at: number;
  isCount: boolean;
  isLoss: boolean;
  isFromReceipt: boolean;
  /** Who did it (the entry's app user, else the request's actor). */
  by: string;
}

interface Latest {
  at: number;
  by: string;
}

interface Stamp {
  counted?: Latest;
  loss?: Latest;
  receipt?: Latest;
}

const COLUMNS: readonly RowsSourceColumn[] = [
  { name: 'product_id', type: 'bigint' },
  { name: 'counted_at', type: 'bigint' },
  { name: 'counted_by', type: 'text' },
  { name: 'loss_at', type: 'bigint' },
  { name: 'loss_by', type: 'text' },
  { name: 'receipt_at', type: 'bigint' },
  { name: 'receipt_by', type: 'text' },
];

const KINDS = [
  { name: 'counted', at: 'last_counted_at', by: 'last_counted_by' },
  { name: 'loss', at: 'last_loss_at', by: 'last_loss_by' },
  { name: 'receipt', at: 'last_receipt_at', by: 'last_receipt_by' },
] as const;

/** A kind's stamp moves only forward: an entry older than the recorded one leaves it. */
const KIND_SETS = sql.join(
  KINDS.flatMap((kind) => {
    const at = sql.ref(`v.${kind.name}_at`);
    const newer = sql`${at} is not null and (store_products.${sql.raw(kind.at)} is null or store_products.${sql.raw(kind.at)} <= ${at})`;
    return [
      sql`${sql.raw(kind.at)} = case when ${newer} then ${at} else store_products.${sql.raw(kind.at)} end`,
      sql`${sql.raw(kind.by)} = case when ${newer} then ${sql.ref(`v.${kind.name}_by`)} else store_products.${sql.raw(kind.by)} end`,
    ];
  }),
);

const later = (previous: Latest | undefined, at: number, by: string): Latest =>
  previous && previous.at > at ? previous : { at, by };

/**
 * One update per store over every store product whose balances changed
 * (`changed`: their keys) or that a touch names. Products in ascending id order, so two
 * writers of one store lock shared rows in the same order.
 */
export async function stampStoreProducts(
  trx: Transaction<Database>,
  dialect: Dialect,
  changed: ReadonlyArray<{ storeId: number; productId: number }>,
  touches: readonly StockTouch[],
  now: number,
): Promise<void> {
  const stampsByStore = new Map<number, Map<number, Stamp>>();
  const stampOf = (storeId: number, productId: number): Stamp => {
    let stamps = stampsByStore.get(storeId);
    if (!stamps) stampsByStore.set(storeId, (stamps = new Map()));
    let stamp = stamps.get(productId);
    if (!stamp) stamps.set(productId, (stamp = {}));
    return stamp;
  };
  for (const { storeId, productId } of changed) stampOf(storeId, productId);
  for (const touch of touches) {
    const stamp = stampOf(touch.storeId, touch.productId);
    if (touch.isCount) stamp.counted = later(stamp.counted, touch.at, touch.by);
    if (touch.isLoss) stamp.loss = later(stamp.loss, touch.at, touch.by);
    if (touch.isFromReceipt) stamp.receipt = later(stamp.receipt, touch.at, touch.by);
  }

  for (const [storeId, stamps] of stampsByStore) {
    const rows = [...stamps]
      .sort((a, b) => a[0] - b[0])
      .map(([productId, s]) => [
        productId,
        s.counted?.at,
        s.counted?.by,
        s.loss?.at,
        s.loss?.by,
        s.receipt?.at,
        s.receipt?.by,
      ]);
    await sql`
      update store_products set
        stock_version = store_products.stock_version + 1,
        stock_modified_at = ${now},
        ${KIND_SETS}
      from ${dialect.rowsSource('v', COLUMNS, rows)}
      where store_products.store_id = ${storeId} and store_products.product_id = v.product_id`.execute(trx);
  }
}
