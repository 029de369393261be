import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyReasonSign, splitIntoPools } from '../../src/domain/stock-rules.js';
import { bookEntry } from '../../bench/baselines/stock-booking.js';
import { picker } from '../../bench/lib/data.js';
import { startRawPgWriter, type RawPgWriter } from '../../bench/lib/raw-writer-client.js';
import { REASON, StockClock, stockBody, stockEntries, stockMasterForRawWriter } from '../../bench/lib/stock.js';
import { DIALECTS } from '../helpers/dialects.js';

const master = stockMasterForRawWriter();

describe('stock booking of the raw baselines and the bench model', () => {
  it("signs and pools every generated entry as the service's stock rules do", () => {
    const entries = stockEntries(picker(9), new StockClock(), 2_000, 50);
    for (const entry of entries) {
      const reason = entry.reason_code === undefined ? undefined : master.reasons[String(entry.reason_code)];
      const split = splitIntoPools({
        quantityMilli: Math.round(entry.quantity * 1000),
        poolLocation: entry.pool_location,
        locationDefaultPool: master.defaultPools[entry.location_code ?? ''] ?? undefined,
      });
      expect(split.ok).toBe(true);
      const [part] = split.ok ? split.parts : [];
      const booked = bookEntry(master, entry);
      expect([booked.pool, booked.delta, booked.locationCode, booked.at]).toEqual([
        part!.pool,
        applyReasonSign(part!.quantityMilli, reason),
        entry.location_code ?? '',
        Date.parse(entry.modification_datetime),
      ]);
    }
    // The generator covers every case: losses, gains, negative plain quantities, explicit and default pools.
    const booked = entries.map((entry) => ({ entry, booked: bookEntry(master, entry) }));
    expect(booked.some((b) => b.entry.reason_code === REASON.loss && b.booked.delta < 0)).toBe(true);
    expect(booked.some((b) => b.entry.reason_code === REASON.gain && b.entry.quantity > 0 && b.booked.delta > 0)).toBe(
      true,
    );
    expect(booked.some((b) => b.entry.reason_code === undefined && b.booked.delta < 0)).toBe(true);
    expect(booked.some((b) => b.entry.pool_location === undefined && b.booked.pool === 2)).toBe(true);
  });
});

const postgres = DIALECTS.find((dialect) => dialect.name === 'postgres');

describe.skipIf(postgres === undefined)('raw pg write baseline process (PostgreSQL)', () => {
  let writer: RawPgWriter;
  let databaseUrl: string;
  let client: pg.Client;
  beforeAll(async () => {
    writer = startRawPgWriter();
    databaseUrl = await postgres!.freshDatabaseUrl();
    const url = new URL(databaseUrl);
    const schema = url.searchParams.get('schema')!;
    url.searchParams.delete('schema');
    client = new pg.Client({ connectionString: url.toString(), options: `-c search_path=${schema}` });
    await client.connect();
  });
  afterAll(async () => {
    await writer?.stop();
    await client?.end();
    await postgres?.cleanup();
  });

  const query = async <T extends pg.QueryResultRow>(text: string) => (await client.query<T>(text)).rows;
  const at = (second: number) => `2026-11-01T10:00:${String(second).padStart(2, '0')}Z`;
  const entry = (product: string, quantity: number, second: number, more: Record<string, unknown> = {}) => ({
    product_number: product,
    quantity,
    customer_order_line_number: 0,
    modification_datetime: at(second),
    ...more,
  });

  it('refuses a URL without a fresh ?schema= (never the default schema)', async () => {
    const url = new URL(databaseUrl);
    url.searchParams.delete('schema');
    await expect(writer.send({ op: 'open', databaseUrl: url.toString(), connections: 2, master })).rejects.toThrow(
      /schema/,
    );
  });

  it('opens a fresh schema with the two plain tables: a bigint identity key and the natural unique key, no other index, trigger or foreign key', async () => {
    await writer.send({ op: 'open', databaseUrl, connections: 2, master });
    const indexes = await query<{ tablename: string; indexdef: string }>(
      `select tablename, indexdef from pg_indexes where schemaname = current_schema() order by tablename, indexname`,
    );
    expect(indexes.map((i) => [i.tablename, i.indexdef.replace(/^.* USING /, '')])).toEqual([
      ['stock_entries', 'btree (id)'],
      ['stock_levels', 'btree (id)'],
      ['stock_levels', 'btree (store_number, product_number, location_code, pool)'],
    ]);
    const constraints = await query<{ contype: string }>(
      `select c.contype from pg_constraint c join pg_namespace n on n.oid = c.connamespace where n.nspname = current_schema() and c.contype not in ('p', 'u', 'n')`,
    );
    expect(constraints).toEqual([]);
    expect(
      await query(
        `select tgname from pg_trigger t join pg_class c on c.oid = t.tgrelid join pg_namespace n on n.oid = c.relnamespace where n.nspname = current_schema()`,
      ),
    ).toEqual([]);
    const notNull = await query<{ table_name: string; column_name: string }>(
      `select table_name, column_name from information_schema.columns where table_schema = current_schema() and is_nullable = 'NO' order by table_name, ordinal_position`,
    );
    expect(notNull.map((c) => `${c.table_name}.${c.column_name}`)).toEqual([
      'stock_entries.id',
      'stock_levels.id',
      'stock_levels.store_number',
      'stock_levels.product_number',
      'stock_levels.location_code',
      'stock_levels.pool',
    ]);
  });

  it('books each stream on its own connection: a row per entry, one level per key moved by the summed signed quantities in the right pool', async () => {
    await writer.send({ op: 'open', databaseUrl, connections: 2, master });
    const first = [
      entry('P1', 10, 1, { location_code: 'A-01-01', app_user_name: 'anna', reference: 'DOC-1' }),
      entry('P1', 3, 2, { location_code: 'A-01-01', reason_code: REASON.loss }),
      entry('P1', -2, 3, { location_code: 'BACK-01', reason_code: REASON.gain }),
      entry('P1', 1.5, 4, { pool_location: 3 }),
    ];
    const second = [entry('P1', 4, 5, { location_code: 'A-01-01' }), entry('P2', -1, 6, { reason_code: REASON.plain })];
    const answer = await writer.send({
      op: 'stock-batch',
      streams: [
        {
          storeNumber: 'S00001',
          bodies: [stockBody(first), stockBody([entry('P1', 1, 7, { location_code: 'A-01-01' })])],
        },
        { storeNumber: 'S00002', bodies: [stockBody(second)] },
      ],
    });
    expect(answer.rows).toBe(7);
    expect(answer.latencies).toHaveLength(3);
    expect(answer.ms).toBeGreaterThan(0);
    const entries = await query(
      `select store_number, product_number, location_code, pool, reason_code, delta::int, app_user_name, reference from stock_entries where reference is not null`,
    );
    expect(entries).toEqual([
      {
        store_number: 'S00001',
        product_number: 'P1',
        location_code: 'A-01-01',
        pool: 1,
        reason_code: null,
        delta: 10000,
        app_user_name: 'anna',
        reference: 'DOC-1',
      },
    ]);
    const levels = await query(
      `select store_number, product_number, location_code, pool, quantity::int, last_at::bigint::text as last_at from stock_levels order by 1, 2, 3, 4`,
    );
    expect(levels).toEqual([
      {
        store_number: 'S00001',
        product_number: 'P1',
        location_code: '',
        pool: 3,
        quantity: 1500,
        last_at: String(Date.parse(at(4))),
      },
      {
        store_number: 'S00001',
        product_number: 'P1',
        location_code: 'A-01-01',
        pool: 1,
        quantity: 10000 - 3000 + 1000,
        last_at: String(Date.parse(at(7))),
      },
      {
        store_number: 'S00001',
        product_number: 'P1',
        location_code: 'BACK-01',
        pool: 2,
        quantity: 2000,
        last_at: String(Date.parse(at(3))),
      },
      {
        store_number: 'S00002',
        product_number: 'P1',
        location_code: 'A-01-01',
        pool: 1,
        quantity: 4000,
        last_at: String(Date.parse(at(5))),
      },
      {
        store_number: 'S00002',
        product_number: 'P2',
        location_code: '',
        pool: 1,
        quantity: -1000,
        last_at: String(Date.parse(at(6))),
      },
    ]);
  });

  it('one transaction per request: a request that cannot be booked leaves nothing of itself, and the batch fails', async () => {
    await writer.send({ op: 'open', databaseUrl, connections: 1, master });
    await writer.send({
      op: 'stock-batch',
      streams: [{ storeNumber: 'S00001', bodies: [stockBody([entry('P1', 5, 1)])] }],
    });
    // No product number: the entry row could go in, its level (natural key NOT NULL) cannot.
    const broken = JSON.stringify({
      storeproductlog: [
        entry('P2', 1, 2),
        { quantity: 1, customer_order_line_number: 0, modification_datetime: at(3) },
      ],
    });
    await expect(
      writer.send({ op: 'stock-batch', streams: [{ storeNumber: 'S00001', bodies: [broken] }] }),
    ).rejects.toThrow(/null/i);
    expect(await query(`select product_number, delta::int from stock_entries`)).toEqual([
      { product_number: 'P1', delta: 5000 },
    ]);
    expect(await query(`select product_number, quantity::int from stock_levels`)).toEqual([
      { product_number: 'P1', quantity: 5000 },
    ]);
  });
});
