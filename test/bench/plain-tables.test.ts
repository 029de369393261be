import SqliteDatabase from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import {
  columnsOfRecords,
  plainTableDdl,
  productBarcodesTable,
  productListLinesTable,
  productListReadLinesTable,
  productListsTable,
  productsTable,
  stockEntriesTable,
  stockLevelsTable,
  storesTable,
  PRODUCT_LIST_LINE_FIELDS,
  type PlainTable,
} from '../../bench/baselines/plain-tables.js';
import { storeInputs } from '../../bench/lib/data.js';
import { picker } from '../../bench/lib/data.js';
import {
  CUSTOMER_ORDER_FIELDS,
  CUSTOMER_ORDER_LINE_FIELDS,
  customerOrderPlainTables,
  customerOrders,
} from '../../bench/scenarios/customer-orders.js';
import {
  DELIVERY_LINE_FIELDS,
  DELIVERY_ORDER_FIELDS,
  deliveryOrders,
  deliveryPlainTables,
} from '../../bench/scenarios/deliveries.js';
import { productInput } from '../../bench/scenarios/products.js';

/** Every plain table a raw write baseline fills, built as the scenarios build them. */
const stores = storeInputs(50);
const products = Array.from({ length: 50 }, (_, index) => productInput(index));
const TABLES: PlainTable[] = [
  storesTable(columnsOfRecords(stores, ['store_number'])),
  productsTable(columnsOfRecords(products, ['product_number'])),
  productBarcodesTable,
  stockEntriesTable,
  stockLevelsTable,
  ...deliveryPlainTables(),
  ...customerOrderPlainTables(),
  productListsTable,
  productListLinesTable,
  productListReadLinesTable,
];

describe('plain tables of the raw write baselines', () => {
  for (const table of TABLES) {
    it(`${table.name}: an integer primary key and the natural unique key, nothing else`, () => {
      const database = new SqliteDatabase(':memory:');
      database.exec(plainTableDdl(table));
      const columns = database.pragma(`table_info(${table.name})`) as Array<{
        name: string;
        pk: number;
        notnull: number;
        dflt_value: unknown;
      }>;
      expect(columns.filter((c) => c.pk > 0).map((c) => c.name)).toEqual(['id']);
      expect(columns.filter((c) => c.dflt_value !== null)).toEqual([]);
      expect(
        columns
          .filter((c) => c.notnull === 1)
          .map((c) => c.name)
          .sort(),
      ).toEqual([...table.naturalKey].sort());

      const indexes = database.pragma(`index_list(${table.name})`) as Array<{
        name: string;
        unique: number;
        origin: string;
      }>;
      if (table.naturalKey.length === 0) {
        expect(indexes).toEqual([]);
      } else {
        expect(indexes.map((i) => [i.unique, i.origin])).toEqual([[1, 'u']]);
        const keyColumns = (database.pragma(`index_info(${indexes[0]!.name})`) as Array<{ name: string }>).map(
          (c) => c.name,
        );
        expect(keyColumns).toEqual([...table.naturalKey]);
      }
      expect(database.pragma(`foreign_key_list(${table.name})`)).toEqual([]);
      expect(database.prepare("select name from sqlite_master where type in ('trigger', 'view')").all()).toEqual([]);
      expect(database.prepare(`select sql from sqlite_master where name = ?`).pluck().get(table.name)).not.toMatch(
        /check|references|default|collate/i,
      );
      database.close();
    });
  }

  it('hold every field the records carry, the natural key once', () => {
    const storeColumns = columnsOfRecords(stores, ['store_number']);
    expect(storeColumns).not.toContain('store_number');
    expect(storeColumns).toEqual(
      expect.arrayContaining(['store_name', 'free_fields', 'opening_hours', 'store_printers']),
    );
    expect(columnsOfRecords(products, ['product_number'])).toEqual(
      expect.arrayContaining(['product_name', 'barcodes_array', 'units']),
    );
  });

  it('deliveries: a column for every field the generated orders and lines carry, the store from the path, lines keyed by order id and line number', () => {
    const orders = deliveryOrders(picker(3), 1, 200, 20, 2_000);
    const [orderTable, lineTable] = deliveryPlainTables();
    const lines = orders.flatMap((order) => order.order_lines);
    expect(orderTable!.naturalKey).toEqual(['order_number']);
    expect(orderTable!.columns[0]).toBe('store_number');
    expect(new Set(orderTable!.columns.slice(1))).toEqual(
      new Set(columnsOfRecords(orders, ['order_number', 'order_lines'])),
    );
    expect(new Set(orderTable!.columns.slice(1))).toEqual(
      new Set(DELIVERY_ORDER_FIELDS.filter((f) => f !== 'order_number')),
    );
    expect(lineTable!.naturalKey).toEqual(['order_id', 'line_number']);
    expect(new Set(lineTable!.columns)).toEqual(new Set(columnsOfRecords(lines, ['line_number'])));
    expect(new Set(lineTable!.columns)).toEqual(new Set(DELIVERY_LINE_FIELDS.filter((f) => f !== 'line_number')));
  });

  it('customer orders: a column for every field the generated orders and lines carry, the store from the path, lines keyed by order id and line number', () => {
    const orders = customerOrders(picker(3), 1, 500, 5, 2_000);
    const [orderTable, lineTable] = customerOrderPlainTables();
    const lines = orders.flatMap((order) => order.lines);
    expect(orderTable!.name).toBe('customer_orders');
    expect(orderTable!.naturalKey).toEqual(['order_number']);
    expect(orderTable!.columns[0]).toBe('store_number');
    expect(new Set(orderTable!.columns.slice(1))).toEqual(new Set(columnsOfRecords(orders, ['order_number', 'lines'])));
    expect(new Set(orderTable!.columns.slice(1))).toEqual(
      new Set(CUSTOMER_ORDER_FIELDS.filter((f) => f !== 'order_number')),
    );
    expect(lineTable!.name).toBe('customer_order_lines');
    expect(lineTable!.naturalKey).toEqual(['order_id', 'line_number']);
    expect(new Set(lineTable!.columns)).toEqual(new Set(columnsOfRecords(lines, ['line_number'])));
    expect(new Set(lineTable!.columns)).toEqual(new Set(CUSTOMER_ORDER_LINE_FIELDS.filter((f) => f !== 'line_number')));
  });

  it('product lists: header and lines without a natural key or any other index (issue 14); the read copy keyed by list and position, a column per answered field', () => {
    expect(productListsTable.naturalKey).toEqual([]);
    expect(productListLinesTable.naturalKey).toEqual([]);
    expect(productListLinesTable.columns).toEqual(['list_id', 'line_no', 'product_id', 'quantity', 'stock_pool']);
    expect(productListReadLinesTable.naturalKey).toEqual(['list_id', 'line_no']);
    expect(productListReadLinesTable.columns).toEqual([...PRODUCT_LIST_LINE_FIELDS]);
  });
});
