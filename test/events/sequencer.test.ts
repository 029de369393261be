import { sql, type Transaction } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb } from '../../src/db/connect.js';
import { postgresEventSequencing } from '../../src/db/dialect/postgres-events.js';
import type { DbHandle } from '../../src/db/dialect/types.js';
import type { Database } from '../../src/db/schema.js';
import { inTransaction } from '../../src/db/transaction.js';
import { applyEntries } from '../../src/ledger/postings.js';
import { API, buildTestApp, type TestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';
import { productInput, stockLogInput, storeInput } from '../helpers/factories.js';
import { sequenceProblems, type FeedEvent } from '../helpers/feed.js';
import { bareEntry, TEST_PRINCIPAL } from '../helpers/stock.js';

// The PostgreSQL sequencer (dialect/postgres-events.ts, PRODUCT §9), step by step: writers
// insert their events in one order and commit in another, and an event is numbered only once
// its transaction committed. Each case holds transactions open on purpose, on connections of
// its own, and looks at what the feed serves in between. (SQLite numbers events at insert,
// with one writer at a time: nothing to interleave.)

const dialect = DIALECTS.find((d) => d.name === 'postgres');
const STORE = 'SQ';

describe.skipIf(dialect === undefined)('change feed sequencer (postgres)', () => {
  let t: TestApp;
  let databaseUrl: string;
  let storeId: number;
  const clients: pg.Client[] = [];

  beforeAll(async () => {
    databaseUrl = await dialect!.freshDatabaseUrl();
    t = await buildTestApp(dialect!, { databaseUrl });
    expect(
      (await t.post(`${API}/stores`, { stores: [STORE, 'SQ-D', 'SQ-E'].map((store) => storeInput(store)) })).statusCode,
    ).toBe(200);
    const products = ['SQ-X', 'SQ-Y', 'SQ-R', 'SQ-U'].map((p) => productInput(p));
    expect((await t.post(`${API}/products`, { products })).statusCode).toBe(200);
    // The balances exist: the bookings below write their rows before they queue for their turns.
    const booked = await t.post(`${API}/stores/${STORE}/products/stock/storeproductlogs`, {
      storeproductlog: [
        stockLogInput('SQ-X', 1, '2026-01-01T00:00:00Z'),
        stockLogInput('SQ-Y', 1, '2026-01-01T00:00:00Z'),
      ],
    });
    expect(booked.statusCode, booked.body).toBe(200);
    storeId = (
      await t.app.ctx.db.selectFrom('stores').select('id').where('store_number', '=', STORE).executeTakeFirstOrThrow()
    ).id;
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.end()));
    await t?.close();
    await dialect?.cleanup();
  });

  /** A connection of its own to the test's schema, for a transaction the test holds open. */
  async function connect(): Promise<pg.Client> {
    const url = new URL(databaseUrl);
    const schema = url.searchParams.get('schema')!;
    url.searchParams.delete('schema');
    const client = new pg.Client({ connectionString: url.toString(), options: `-c search_path=${schema}` });
    await client.connect();
    clients.push(client);
    return client;
  }

  async function page(after: number): Promise<{ events: FeedEvent[]; next_after: number }> {
    const response = await t.get(`${API}/events?after=${after}&limit=1000`);
    expect(response.statusCode, response.body).toBe(200);
    return response.json();
  }

  async function follow(after: number): Promise<FeedEvent[]> {
    const events: FeedEvent[] = [];
    for (;;) {
      const { events: read, next_after } = await page(after);
      events.push(...read);
      if (next_after === after) return events;
      after = next_after;
    }
  }

  const lastServed = async () => {
    const events = await follow(0);
    return events.length === 0 ? 0 : events[events.length - 1]!.sequence;
  };

  /** Books `quantity` on the product's unlocated pool-1 balance in `trx`, as the stock engine does. */
  const book = (productId: number, quantity: number) => (trx: Transaction<Database>) =>
    applyEntries(
      trx,
      t.app.ctx.ledger,
      [
        bareEntry(
          storeId,
          productId,
          {
            locationId: 0,
            pool: 1,
            orderKey: '',
            at: Date.parse('2026-02-01T00:00:00Z'),
            quantityMilli: quantity * 1000,
            isCount: false,
          },
          { store_number: STORE, product_number: productNumbers.get(productId)! },
        ),
      ],
      new Map([[storeId, STORE]]),
      TEST_PRINCIPAL,
      Date.now(),
    );
  const productNumbers = new Map<number, string>();
  const productId = async (productNumber: string) => {
    const { id } = await t.app.ctx.db
      .selectFrom('products')
      .select('id')
      .where('product_number', '=', productNumber)
      .executeTakeFirstOrThrow();
    productNumbers.set(id, productNumber);
    return id;
  };
  /** The id (insert order) of the stock.changed event a booking of these entries wrote. */
  const eventIdOf = async (client: pg.Client, logId: number) => {
    const { rows } = await client.query<{ id: string }>(
      `select id from events where type = 'stock.changed' and data like $1`,
      [`%"log_entry_ids":[${logId}]%`],
    );
    expect(rows).toHaveLength(1);
    return Number(rows[0]!.id);
  };

  it('an event inserted first but committed last is numbered after the one that committed first, and a later booking of its balance after it; a reader sees each once', async () => {
    const [x, y] = [await productId('SQ-X'), await productId('SQ-Y')];
    const start = await lastServed();
    const watcher = await connect();

    // A books X and holds its transaction (and X's turn) open.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let wrote!: (written: { ids: number[]; pid: number }) => void;
    const aWrote = new Promise<{ ids: number[]; pid: number }>((resolve) => (wrote = resolve));
    const a = t.app.ctx.handle.db.transaction().execute(async (trx) => {
      const ids = await book(x, 5)(trx);
      const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx);
      wrote({ ids, pid: rows[0]!.pid });
      await held;
      return ids;
    });
    let c: Promise<number[]> | undefined;
    try {
      const {
        ids: [aLog],
        pid: aBackend,
      } = await aWrote;
      // B books Y and commits; C books X and queues behind A for X's turn.
      const [bLog] = await inTransaction(t.app.ctx.handle, book(y, 2));
      c = inTransaction(t.app.ctx.handle, book(x, 3));
      for (let waited = 0; ; waited += 10) {
        const { rows } = await watcher.query<{ waiting: string }>(
          `select count(*) as waiting from pg_stat_activity where $1 = any(pg_blocking_pids(pid))`,
          [aBackend],
        );
        if (Number(rows[0]!.waiting) > 0) break;
        if (waited > 5000) throw new Error('C never queued for its turn');
        await new Promise((resolve) => setTimeout(resolve, 10));
      }

      // While A is open: B's event is numbered and served, A's is invisible (and stays so across upkeep passes).
      const first = await page(start);
      expect(
        first.events.map((e) => [e.sequence, e.data.product_number, e.data.quantity, e.data.log_entry_ids]),
      ).toEqual([[start + 1, 'SQ-Y', 3, [bLog]]]);
      expect(first.next_after).toBe(start + 1);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await page(start + 1)).toMatchObject({ events: [], next_after: start + 1 });
      expect(await postgresEventSequencing.lastSequence(t.app.ctx.db)).toBe(start + 1);

      release();
      await a;
      const [cLog] = await c;
      // A's event was inserted before B's, yet comes after it: numbered once it committed. C's follows A's.
      expect(await eventIdOf(watcher, aLog!)).toBeLessThan(await eventIdOf(watcher, bLog!));
      expect(await eventIdOf(watcher, cLog!)).toBeGreaterThan(await eventIdOf(watcher, aLog!));
      const next = await page(first.next_after);
      expect(
        next.events.map((e) => [e.sequence, e.data.product_number, e.data.quantity, e.data.log_entry_ids]),
      ).toEqual([
        [start + 2, 'SQ-X', 6, [aLog]],
        [start + 3, 'SQ-X', 9, [cLog]],
      ]);
      const all = await follow(start);
      expect(all.map((e) => e.sequence)).toEqual([start + 1, start + 2, start + 3]);
      expect(all.map((e) => e.data.log_entry_ids[0])).toEqual([bLog, aLog, cLog]);
    } finally {
      // Whatever failed, nothing stays open for the next case to queue behind.
      release();
      await Promise.allSettled([a, c]);
    }
  });

  it('a read sees every write committed before it, even while another sequencer holds the turn', async () => {
    const start = await lastServed();
    // Another process's pass holds the turn: it began before the write below committed, so it cannot number it.
    const holder = await connect();
    await holder.query('begin');
    try {
      await holder.query(`select pg_advisory_xact_lock(hashtext(current_schema() || ':event sequencer'))`);
      const writer = await connect();
      await writer.query(
        `update stores set store_name = 'read after', updated_on = updated_on + 1 where store_number = 'SQ-D'`,
      );
      const reading = page(start);
      await new Promise((resolve) => setTimeout(resolve, 200));
      await holder.query('commit');
      expect((await reading).events.map((e) => [e.sequence, e.type, e.store_number])).toEqual([
        [start + 1, 'store.upserted', 'SQ-D'],
      ]);
    } finally {
      await holder.query('rollback');
    }
  });

  it("a rolled-back transaction's events never appear and leave no gap", async () => {
    const start = await lastServed();
    // Changes of different tables: a product's holds the products' version row (migration 0007) to its end.
    const renameProduct = (client: pg.Client, product: string) =>
      client.query(`update products set product_name = $2, updated_on = updated_on + 1 where product_number = $1`, [
        product,
        `${product} ${Date.now()}`,
      ]);
    const renameStore = (client: pg.Client, store: string) =>
      client.query(`update stores set store_name = $2, updated_on = updated_on + 1 where store_number = $1`, [
        store,
        `${store} ${Date.now()}`,
      ]);

    const r = await connect();
    await r.query('begin');
    try {
      await renameProduct(r, 'SQ-R');
      // Its event is in the table (to its own transaction), unnumbered.
      expect(Number((await r.query(`select count(*) as n from events where sequence is null`)).rows[0].n)).toBe(1);
      // A stock booking that fails after writing its event, too.
      const x = await productId('SQ-X');
      await expect(
        inTransaction(t.app.ctx.handle, async (trx) => {
          await book(x, 7)(trx);
          throw new Error('the request fails after booking');
        }),
      ).rejects.toThrow('the request fails');

      const d = await connect();
      await renameStore(d, 'SQ-D');
      const first = await page(start);
      expect(first.events.map((e) => [e.sequence, e.type, e.store_number])).toEqual([
        [start + 1, 'store.upserted', 'SQ-D'],
      ]);

      await r.query('rollback');
      await renameStore(d, 'SQ-E');
      expect((await page(first.next_after)).events.map((e) => [e.sequence, e.type, e.store_number])).toEqual([
        [start + 2, 'store.upserted', 'SQ-E'],
      ]);
      const all = await follow(start);
      expect(all.map((e) => e.store_number)).toEqual(['SQ-D', 'SQ-E']);
      expect(
        sequenceProblems(
          all.map((e) => e.sequence),
          start,
          start + 2,
        ),
      ).toEqual([]);
      // Nothing else is in the table: no event of either rolled-back transaction waits for a number.
      const { rows } = await d.query(`select count(*) as n from events where sequence is null or sequence > $1`, [
        start + 2,
      ]);
      expect(Number(rows[0].n)).toBe(0);
    } finally {
      await r.query('rollback');
    }
  });

  it('two sequencers at once never give a number twice nor leave a gap, and number each writer in its commit order', async () => {
    const start = await lastServed();
    const handles: DbHandle[] = [createDb(databaseUrl), createDb(databaseUrl)];
    const numbered = [0, 0];
    const errors: string[] = [];
    let writing = true;
    try {
      const sequencers = handles.map(async (handle, which) => {
        while (writing) {
          try {
            numbered[which] = numbered[which]! + (await postgresEventSequencing.sequence(handle.db));
          } catch (error) {
            errors.push(`sequencer ${which}: ${(error as Error).message}`);
          }
        }
      });
      // Four writers, each committing (or rolling back) small transactions of events one after the other.
      const committed: Array<Array<{ writer: number; n: number }>> = [[], [], [], []];
      const writers = committed.map(async (mine, writer) => {
        const client = await connect();
        for (let n = 0; n < 150 || ((numbered[0] === 0 || numbered[1] === 0) && n < 5000); n++) {
          const events = 1 + (n % 3);
          await client.query('begin');
          for (let e = 0; e < events; e++) {
            await client.query(
              `insert into events (type, store_number, occurred_at, data) values ('product.upserted', null, 0, $1)`,
              [JSON.stringify({ writer, n, e })],
            );
          }
          if (n % 10 === 7) await client.query('rollback');
          else {
            await client.query('commit');
            for (let e = 0; e < events; e++) mine.push({ writer, n });
          }
        }
      });
      await Promise.all(writers);
      writing = false;
      await Promise.all(sequencers);
      while (await postgresEventSequencing.pending(handles[0]!.db))
        await postgresEventSequencing.sequence(handles[0]!.db);

      expect(errors).toEqual([]);
      // Both sequencers took turns numbering (the app's own upkeep a third).
      expect(numbered[0]).toBeGreaterThan(0);
      expect(numbered[1]).toBeGreaterThan(0);
      const client = await connect();
      const { rows } = await client.query<{ sequence: string; data: string }>(
        `select sequence, data from events where sequence > $1 order by sequence`,
        [start],
      );
      const last = await postgresEventSequencing.lastSequence(t.app.ctx.db);
      expect(
        sequenceProblems(
          rows.map((row) => Number(row.sequence)),
          start,
          last,
        ),
      ).toEqual([]);
      expect(Number((await client.query(`select count(*) as n from events where sequence is null`)).rows[0].n)).toBe(0);
      const numberedEvents = rows.map((row) => JSON.parse(row.data) as { writer: number; n: number });
      // Each writer's committed events, and only those, in the order it committed them.
      for (const [writer, mine] of committed.entries()) {
        expect(numberedEvents.filter((e) => e.writer === writer).map((e) => ({ writer, n: e.n }))).toEqual(mine);
      }
    } finally {
      writing = false;
      await Promise.all(handles.map((handle) => handle.close()));
    }
  }, 60_000);

  it("numbers committed events within 1 s through the app's background upkeep, with nobody reading the feed", async () => {
    const client = await connect();
    await client.query(
      `update products set product_name = 'upkeep', updated_on = updated_on + 1 where product_number = 'SQ-U'`,
    );
    const committedAt = Date.now();
    const { rows } = await client.query<{ id: string }>(
      `select id from events where data like '%SQ-U%' order by id desc limit 1`,
    );
    const id = rows[0]!.id;
    for (;;) {
      const { rows: numbered } = await client.query<{ sequence: string | null }>(
        `select sequence from events where id = $1`,
        [id],
      );
      if (numbered[0]!.sequence !== null) break;
      expect(Date.now() - committedAt, 'numbered within 1 s of its commit').toBeLessThan(1000);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  });
});
