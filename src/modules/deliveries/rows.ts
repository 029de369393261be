import type { Selectable } from 'kysely';
import type {
  DeliveryOrderLineTable,
  DeliveryOrderTable,
  ReceiptLineTable,
  ReceiptOrderTable,
} from '../../db/schema.js';

// The rows the deliveries repositories return, in one place: mapping turns them into API shapes.

export type DeliveryRow = Selectable<DeliveryOrderTable>;
export type DeliveryLineRow = Selectable<DeliveryOrderLineTable>;
export type ReceiptRow = Selectable<ReceiptOrderTable>;
export type ReceiptLineRow = Selectable<ReceiptLineTable>;

/** A delivery as listed: its row and the store's GLN. */
export type DeliveryReadRow = DeliveryRow & { store_gln: string | null };

/** A delivery line as read: its row enriched from the product master and the store product. */
export type DeliveryLineReadRow = DeliveryLineRow & {
  master_barcode: string | null;
  category_code: string | null;
  base_unit_name: string | null;
  purchase_unit_quantity: number | null;
  group_code: string | null;
};

/** A receipt as listed: its row, the store's GLN and what it takes from its delivery. */
export type ReceiptReadRow = ReceiptRow & {
  store_gln: string | null;
  datetime_expected_at: number;
  supplier_code: string | null;
  supplier_name: string | null;
};
