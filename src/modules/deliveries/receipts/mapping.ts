import { formatDateTime } from '../../../domain/datetime.js';
import { fromMoney, fromQuantity } from '../../../domain/decimal.js';
import { orUndefined } from '../../../shared/nullable.js';
import type { ReceiptLineReadRow, ReceiptReadRow } from './rows.js';
import type { ReceiptLine, ReceiptOrder } from './schema.js';

export function toReceiptLine(row: ReceiptLineReadRow): ReceiptLine {
  return {
    id: row.id,
    purchase_price: fromMoney(row.purchase_price),
    received_quantity: fromQuantity(row.received_quantity),
    shipped_quantity: fromQuantity(row.shipped_quantity),
    store_products_price: fromMoney(row.store_products_price),
    updated_on: formatDateTime(row.updated_on),
    barcode: orUndefined(row.barcode),
    category_code: orUndefined(row.category_code),
    container_barcode: orUndefined(row.container_barcode),
    description: orUndefined(row.description),
    group_code: orUndefined(row.group_code),
    line_number: Number(row.line_number),
    product_number: orUndefined(row.product_number),
  };
}

export function toReceiptOrder(row: ReceiptReadRow, lines: readonly ReceiptLineReadRow[]): ReceiptOrder {
  return {
    datetime_created: formatDateTime(row.datetime_created_at),
    datetime_expected: formatDateTime(row.datetime_expected_at),
    import_id: row.id,
    order_type_id: Number(row.order_type_id),
    updated_on: formatDateTime(row.updated_on),
    order_number: row.order_number,
    status: row.is_submitted === 1 ? 'received' : 'receiving',
    store_gln: orUndefined(row.store_gln),
    store_number: row.store_number,
    supplier_code: orUndefined(row.supplier_code),
    supplier_name: orUndefined(row.supplier_name),
    receipt_lines: lines.map(toReceiptLine),
  };
}
