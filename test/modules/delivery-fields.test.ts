import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LINE_FIELDS, ORDER_FIELDS } from '../../src/modules/deliveries/fields.js';
import { headerHash, headerOf, LINE_COLUMNS, lineRecord } from '../../src/modules/deliveries/mapping.js';
import { DELIVERY_LINE_COLUMNS, DELIVERY_ORDER_COLUMNS } from '../../src/modules/deliveries/rows.js';
import { buildTestApp, type TestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';

// Issue 42: a delivery's fields are declared once (deliveries/fields.ts); the compiler holds the
// records they write against db/schema.ts (rows.ts). These hold db/schema.ts's column lists
// against the tables the migrations made, and the header's hash against the stored ones.

const declaredColumns = (fields: Record<string, { column: string | undefined }>) =>
  Object.values(fields).flatMap((field) => (field.column === undefined ? [] : [field.column]));

describe('delivery field declarations', () => {
  it("hashes a header as deliveries stored before the declarations were (the table's column order)", () => {
    const header = headerOf(
      {
        order_number: 'D1',
        order_type: 7,
        datetime_expected: '2025-01-05T10:00:00Z',
        datetime_created: '2025-01-01T08:00:00.123Z',
        no_of_containers: 3,
        description: 'desc',
        reference: 'ref',
        store_origin: 'S2',
        supplier_code: 'SC',
        supplier_name: 'Sup',
        tracing_url: 'http://y',
        reason_code: 4,
      },
      1,
      0,
    );
    expect(Object.keys(header)).toEqual([
      'order_type',
      'datetime_created_at',
      'datetime_expected_at',
      'no_of_containers',
      'reason_code',
      'description',
      'reference',
      'store_origin',
      'supplier_code',
      'supplier_name',
      'tracing_url',
    ]);
    // The content_hash this order was stored with before issue 42.
    expect(headerHash(header)).toBe('MjMIvS71x3jSB4_T2NE9g-_ANWQ');
  });

  it('writes every declared line column, and only those, for an import', () => {
    expect([...LINE_COLUMNS].sort()).toEqual(declaredColumns(LINE_FIELDS).sort());
    const record = lineRecord(
      { line_number: 1, quantity: 2.5, target_stock_pool: 1, product_number: 'ignored' },
      {
        id: 7,
        product_number: 'P1',
      },
    );
    expect(Object.keys(record)).toEqual(LINE_COLUMNS);
    expect(record).toMatchObject({ product_id: 7, product_number: 'P1', quantity: 2500, purchase_price: null });
  });

  for (const dialect of DIALECTS) {
    describe(dialect.name, () => {
      let t: TestApp;
      beforeAll(async () => {
        t = await buildTestApp(dialect);
      });
      afterAll(async () => {
        await t.close();
        await dialect.cleanup();
      });

      it('lists every column of the migrated tables (but the id) and declares none they lack', async () => {
        // On PostgreSQL the introspection lists every schema's tables: other test files' too.
        const schema =
          dialect.name === 'postgres'
            ? (await sql<{ name: string }>`select current_schema() as name`.execute(t.app.ctx.db)).rows[0]!.name
            : undefined;
        const tables = await t.app.ctx.db.introspection.getTables();
        const columnsOf = (name: string) =>
          tables
            .find((table) => table.name === name && (schema === undefined || table.schema === schema))!
            .columns.map((column) => column.name)
            .filter((column) => column !== 'id')
            .sort();
        expect([...DELIVERY_ORDER_COLUMNS].sort()).toEqual(columnsOf('delivery_orders'));
        expect([...DELIVERY_LINE_COLUMNS].sort()).toEqual(columnsOf('delivery_order_lines'));
        for (const column of declaredColumns(ORDER_FIELDS)) expect(columnsOf('delivery_orders')).toContain(column);
      });
    });
  }
});
