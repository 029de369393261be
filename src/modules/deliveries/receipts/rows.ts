import type { Selectable } from 'kysely';
import type { ReceiptLineTable, ReceiptOrderTable } from '../../../db/schema.js';

// The rows the receipt repositories return: mapping.ts turns them into API shapes.

export type ReceiptRow = Selectable<ReceiptOrderTable>;
export type ReceiptLineRow = Selectable<ReceiptLineTable>;

/** A receipt as listed: its row, the store's GLN and what it takes from its delivery. */
export type ReceiptReadRow = ReceiptRow & {
  store_gln: string | null;
  datetime_expected_at: number;
  supplier_code: string | null;
  supplier_name: string | null;
};

/** A receipt line as listed: its row and the product's category and store product's group. */
export type ReceiptLineReadRow = ReceiptLineRow & { category_code: string | null; group_code: string | null };
