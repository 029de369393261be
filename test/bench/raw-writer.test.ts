import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  columnsOfRecords,
  productBarcodesTable,
  productListLinesTable,
  productListsTable,
  productsTable,
  stockEntriesTable,
  stockLevelsTable,
  storesTable,
} from '../../bench/baselines/plain-tables.js';
import { picker, storeInputs } from '../../bench/lib/data.js';
import { startRawWriter, type RawWriter } from '../../bench/lib/raw-writer-client.js';
import { REASON, productNumber, stockMasterForRawWriter, stockProductInput } from '../../bench/lib/stock.js';
import { customerOrderPlainTables, customerOrders } from '../../bench/scenarios/customer-orders.js';
import { deliveryOrders, deliveryPlainTables } from '../../bench/scenarios/deliveries.js';
import { productListBody } from '../../bench/scenarios/product-lists.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-raw-writer-test-'));
let writer: RawWriter;
beforeAll(() => {
  writer = startRawWriter();
});
afterAll(async () => {
  await writer.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

const read = <T>(file: string, query: string) => {
  const database = new SqliteDatabase(file, { readonly: true });
  try {
    return database.prepare(query).all() as T[];
  } finally {
    database.close();
  }
};

describe('raw write baseline process', () => {
  it('imports every record of the body as one plain row, in the synchronous mode it is given', async () => {
    const stores = storeInputs(20);
    const file = path.join(dir, 'stores.sqlite');
    const bodyFile = path.join(dir, 'stores.json');
    fs.writeFileSync(bodyFile, JSON.stringify({ stores }));
    const opened = await writer.send({
      op: 'open',
      file,
      synchronous: 'FULL',
      tables: [storesTable(columnsOfRecords(stores, ['store_number']))],
    });
    expect(opened.synchronous).toBe('FULL');
    const answer = await writer.send({ op: 'import', entity: 'stores', bodyFile });
    expect(answer.rows).toBe(20);
    const rows = read<{ store_number: string; store_name: string; is_active: number; opening_hours: string }>(
      file,
      'select * from stores order by id',
    );
    expect(rows.map((r) => r.store_number)).toEqual(stores.map((s) => s.store_number));
    expect(rows[0]!.store_name).toBe(stores[0]!.store_name);
    expect(rows[0]!.is_active).toBe(stores[0]!.is_active ? 1 : 0);
    expect(JSON.parse(rows[0]!.opening_hours)).toEqual(stores[0]!.opening_hours);
  });

  it('books stock entries (synchronous as asked): a row each, levels moved by the signed quantity in the right pool', async () => {
    const file = path.join(dir, 'stock.sqlite');
    await writer.open({ op: 'open', file, synchronous: 'NORMAL', tables: [stockEntriesTable, stockLevelsTable] });
    await writer.send({ op: 'stock-master', ...stockMasterForRawWriter() });
    const at = (second: number) => `2026-11-01T10:00:${String(second).padStart(2, '0')}Z`;
    const entries = [
      {
        product_number: 'P1',
        quantity: 10,
        customer_order_line_number: 0,
        modification_datetime: at(1),
        location_code: 'A-01-01',
      },
      {
        product_number: 'P1',
        quantity: 3,
        customer_order_line_number: 0,
        modification_datetime: at(2),
        location_code: 'A-01-01',
        reason_code: REASON.loss,
      },
      {
        product_number: 'P1',
        quantity: -2,
        customer_order_line_number: 0,
        modification_datetime: at(3),
        location_code: 'BACK-01',
        reason_code: REASON.gain,
      },
      {
        product_number: 'P1',
        quantity: 1.5,
        customer_order_line_number: 0,
        modification_datetime: at(4),
        pool_location: 3,
      },
    ];
    const answer = await writer.send({ op: 'stock-post', body: JSON.stringify({ storeproductlog: entries }) });
    expect(answer.rows).toBe(4);
    expect(read(file, 'select count(*) as n from stock_entries')).toEqual([{ n: 4 }]);
    const levels = read(file, 'select location_code, pool, quantity from stock_levels order by location_code, pool');
    expect(levels).toEqual([
      { location_code: '', pool: 3, quantity: 1500 },
      { location_code: 'A-01-01', pool: 1, quantity: 7000 },
      { location_code: 'BACK-01', pool: 2, quantity: 2000 },
    ]);
  });

  it('imports deliveries: a row per order (store from the path), a row per line pointing at its order, one transaction; refuses a repeated order number', async () => {
    const file = path.join(dir, 'deliveries.sqlite');
    await writer.open({ op: 'open', file, synchronous: 'FULL', tables: deliveryPlainTables() });
    const orders = deliveryOrders(picker(7), 1, 3, 4, 50);
    const answer = await writer.send({
      op: 'deliveries-import',
      storeNumber: 'S00001',
      body: JSON.stringify({ orders }),
    });
    expect(answer.rows).toBe(3 + 12);
    expect(answer.ms).toBeGreaterThan(0);
    const stored = read<{
      id: number;
      order_number: string;
      store_number: string;
      order_type: number;
      supplier_name: string;
    }>(file, 'select * from delivery_orders order by id');
    expect(stored.map((o) => [o.order_number, o.store_number, o.order_type, o.supplier_name])).toEqual(
      orders.map((o) => [o.order_number, 'S00001', o.order_type, o.supplier_name]),
    );
    const lines = read<{
      order_id: number;
      line_number: number;
      product_number: string;
      quantity: number;
      container_barcode: string;
    }>(file, 'select * from delivery_lines order by id');
    expect(lines.map((l) => [l.order_id, l.line_number, l.product_number, l.quantity, l.container_barcode])).toEqual(
      orders.flatMap((o, k) =>
        o.order_lines.map((l) => [stored[k]!.id, l.line_number, l.product_number, l.quantity, l.container_barcode]),
      ),
    );
    // The natural key holds: the same order number again rolls the whole request back.
    await expect(
      writer.send({
        op: 'deliveries-import',
        storeNumber: 'S00001',
        body: JSON.stringify({ orders: orders.slice(2) }),
      }),
    ).rejects.toThrow(/UNIQUE/);
    expect(read(file, 'select count(*) as n from delivery_lines')).toEqual([{ n: 12 }]);
  });

  it('imports customer orders: a row per order (store from the path), a row per line pointing at its order, one transaction; refuses a repeated order number', async () => {
    const file = path.join(dir, 'customer-orders.sqlite');
    await writer.open({ op: 'open', file, synchronous: 'FULL', tables: customerOrderPlainTables() });
    const orders = customerOrders(picker(7), 1, 3, 5, 50);
    const answer = await writer.send({
      op: 'customer-orders-import',
      storeNumber: 'S00001',
      body: JSON.stringify({ orders }),
    });
    expect(answer.rows).toBe(3 + 15);
    expect(answer.ms).toBeGreaterThan(0);
    const stored = read<{
      id: number;
      order_number: string;
      store_number: string;
      customer_name: string;
      pickup_date: string;
    }>(file, 'select * from customer_orders order by id');
    expect(stored.map((o) => [o.order_number, o.store_number, o.customer_name, o.pickup_date])).toEqual(
      orders.map((o) => [o.order_number, 'S00001', o.customer_name, o.pickup_date]),
    );
    const lines = read<{
      order_id: number;
      line_number: number;
      product_number: string;
      quantity: number;
      price: number;
      stock_pool: number | null;
    }>(file, 'select * from customer_order_lines order by id');
    expect(lines.map((l) => [l.order_id, l.line_number, l.product_number, l.quantity, l.price, l.stock_pool])).toEqual(
      orders.flatMap((o, k) =>
        o.lines.map((l) => [stored[k]!.id, l.line_number, l.product_number, l.quantity, l.price, l.stock_pool ?? null]),
      ),
    );
    // The natural key holds: the same order number again rolls the whole request back.
    await expect(
      writer.send({
        op: 'customer-orders-import',
        storeNumber: 'S00001',
        body: JSON.stringify({ orders: orders.slice(2) }),
      }),
    ).rejects.toThrow(/UNIQUE/);
    expect(read(file, 'select count(*) as n from customer_order_lines')).toEqual([{ n: 15 }]);
  });

  it('creates a product list: a header row, then per line its product looked up by number and a row in the order sent (0 as 1, unknown skipped), one transaction', async () => {
    const file = path.join(dir, 'product-lists.sqlite');
    const products = Array.from({ length: 10 }, (_, index) => stockProductInput(index));
    const productsFile = path.join(dir, 'list-products.json');
    fs.writeFileSync(productsFile, JSON.stringify({ products }));
    await writer.open({
      op: 'open',
      file,
      synchronous: 'FULL',
      tables: [
        productsTable(columnsOfRecords(products, ['product_number'])),
        productBarcodesTable,
        productListsTable,
        productListLinesTable,
      ],
    });
    await writer.send({ op: 'import', entity: 'products', bodyFile: productsFile });
    const ids = new Map(
      read<{ id: number; product_number: string }>(file, 'select id, product_number from products').map((row) => [
        row.product_number,
        row.id,
      ]),
    );
    const body = {
      product_list_name: 'Re-order aisle 3',
      product_list_type: 1,
      free_fields: [{ key: 'aisle', value: '3' }],
      lines: [
        { product_number: productNumber(7), quantity: 2 },
        { product_number: 'NO-SUCH-PRODUCT', quantity: 1 },
        { product_number: productNumber(2), quantity: 0, barcode: 'ignored' },
        { product_number: productNumber(7), quantity: 0.25 },
      ],
    };
    const answer = await writer.send({
      op: 'product-list-create',
      storeNumber: 'S00001',
      appUsername: 'anna',
      body: JSON.stringify(body),
    });
    expect(answer).toMatchObject({ rows: 1 + 3, skipped: 1 });
    expect(answer.ms).toBeGreaterThan(0);
    const lists = read<Record<string, unknown>>(file, 'select * from product_lists');
    expect(lists).toEqual([
      expect.objectContaining({
        store_number: 'S00001',
        name: 'Re-order aisle 3',
        type: 1,
        module_id: null,
        app_username: 'anna',
        allow_duplicates: 1,
        free_fields: '[{"key":"aisle","value":"3"}]',
      }),
    ]);
    const lines = read(
      file,
      'select list_id, line_no, product_id, quantity, stock_pool from product_list_lines order by id',
    );
    expect(lines).toEqual([
      { list_id: lists[0]!.id, line_no: 1, product_id: ids.get(productNumber(7)), quantity: 2000, stock_pool: null },
      { list_id: lists[0]!.id, line_no: 2, product_id: ids.get(productNumber(2)), quantity: 1000, stock_pool: null },
      { list_id: lists[0]!.id, line_no: 3, product_id: ids.get(productNumber(7)), quantity: 250, stock_pool: null },
    ]);
  });

  it('product list bodies of the bench: distinct existing products, quantities 0 (stored as 1) to 24', () => {
    const { body, lines } = productListBody(picker(41), 1, 500, 600);
    expect(JSON.parse(body).lines).toEqual(lines);
    expect(lines).toHaveLength(500);
    expect(new Set(lines.map((line) => line.product_number)).size).toBe(500);
    expect(
      lines.every((line) => Number(line.product_number.slice(1)) <= 600 && line.quantity >= 0 && line.quantity <= 24),
    ).toBe(true);
  });
});
