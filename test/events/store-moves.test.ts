import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, buildTestApp, type TestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';
import { locationInput, priceInput, productInput, storeInput } from '../helpers/factories.js';
import { waitUntil } from '../webhooks/receiver.js';
import {
  followFeed,
  matching,
  QUICK_RETRIES,
  subscribe,
  subscriptionState,
  type Subscribed,
} from '../webhooks/support.js';

/**
 * Issue 40 item 2, PRODUCT §9: a record that moves between stores tells the store it left
 * (migration 0028). The old store's readers get `<resource>.deleted` at the old store, then the
 * record's `.upserted` at its new store, in that order: a mirror kept from any reader's feed —
 * a store token of either store, one of neither, a chain-wide token, a webhook with a store
 * filter — holds what a direct read of that reader's records holds after every move.
 */

interface FeedEvent {
  sequence: number;
  type: string;
  store_number: string | null;
  data: Record<string, unknown>;
}

/** A reader's price mirror: price_id → the store it applies to (null: chain-wide), kept from events alone. */
function applyPrices(mirror: Map<string, string | null>, events: readonly FeedEvent[]): void {
  for (const event of events) {
    if (event.type === 'price.upserted') mirror.set(String(event.data.price_id), event.store_number);
    else if (event.type === 'price.deleted') mirror.delete(String(event.data.price_id));
  }
}

const short = (events: readonly FeedEvent[]) => events.map((e) => `${e.type}@${e.store_number ?? 'chain'}`);

for (const dialect of DIALECTS) {
  describe(`a record moved between stores in the change feed (${dialect.name})`, () => {
    let t: TestApp;
    let tokens: Record<'M1' | 'M2' | 'M3', string>;

    beforeAll(async () => {
      t = await buildTestApp(dialect, { webhooksAllowPrivate: true, webhookTimingForTests: QUICK_RETRIES });
      expect((await t.post(`${API}/stores`, { stores: ['M1', 'M2', 'M3'].map((s) => storeInput(s)) })).statusCode).toBe(
        200,
      );
      expect(
        (
          await t.post(`${API}/products`, {
            products: [productInput('MP1', { price: 1 }), productInput('MP2', { price: 1 })],
          })
        ).statusCode,
      ).toBe(200);
      tokens = {
        M1: await t.token('store', ['M1']),
        M2: await t.token('store', ['M2']),
        M3: await t.token('store', ['M3']),
      };
    });
    afterAll(async () => {
      await t.close();
      await dialect.cleanup();
    });

    /** Every event after `after` as `token` sees it (admin: chain-wide). */
    async function follow(after: number, token?: string): Promise<FeedEvent[]> {
      const events: FeedEvent[] = [];
      for (;;) {
        const response = await t.get(`${API}/events?after=${after}&limit=1000`, token);
        expect(response.statusCode, response.body).toBe(200);
        const page = response.json() as { events: FeedEvent[]; next_after: number };
        events.push(...page.events);
        if (page.next_after === after) return events;
        after = page.next_after;
      }
    }
    const feedEnd = async () => {
      const all = await follow(0);
      return all.length === 0 ? 0 : all[all.length - 1]!.sequence;
    };

    /** The live prices a reader's mirror must hold, read from the records themselves. */
    async function directPrices(store: string | null): Promise<Map<string, string | null>> {
      let query = t.app.ctx.db
        .selectFrom('product_prices')
        .select(['price_id', 'store_number'])
        .where('deleted_on', 'is', null);
      if (store !== null)
        query = query.where((eb) => eb.or([eb('store_number', 'is', null), eb('store_number', '=', store)]));
      return new Map((await query.execute()).map((row) => [row.price_id, row.store_number]));
    }

    /** The price a store's product read answers (the price record where it applies, else the master's). */
    async function readPrice(product: string, store: string, token: string): Promise<number> {
      const response = await t.get(`${API}/products?product_number=${product}&store_number=${store}`, token);
      expect(response.statusCode, response.body).toBe(200);
      return response.json().records[0].price;
    }

    it("tells the store a price left, and every reader's mirror equals its direct read, through S1 → S2 → S1 → chain-wide → S2 → chain-wide → S1", async () => {
      const readers = { M1: tokens.M1, M2: tokens.M2, M3: tokens.M3, chain: undefined } as const;
      const mirrors = new Map(Object.keys(readers).map((name) => [name, new Map<string, string | null>()]));
      const cursors = new Map(Object.keys(readers).map((name) => [name, 0]));
      const start = await feedEnd();
      for (const name of Object.keys(readers)) cursors.set(name, start);

      // store_number per step, and the events each reader must see for it, in order.
      const steps: Array<{ store: string; expect: Record<keyof typeof readers, string[]> }> = [
        { store: 'M1', expect: { M1: ['price.upserted@M1'], M2: [], M3: [], chain: ['price.upserted@M1'] } },
        {
          store: 'M2',
          expect: {
            M1: ['price.deleted@M1'],
            M2: ['price.upserted@M2'],
            M3: [],
            chain: ['price.deleted@M1', 'price.upserted@M2'],
          },
        },
        {
          store: 'M1',
          expect: {
            M1: ['price.upserted@M1'],
            M2: ['price.deleted@M2'],
            M3: [],
            chain: ['price.deleted@M2', 'price.upserted@M1'],
          },
        },
        // To chain-wide: every store token sees the price (chain-wide events reach them all).
        {
          store: '',
          expect: {
            M1: ['price.deleted@M1', 'price.upserted@chain'],
            M2: ['price.upserted@chain'],
            M3: ['price.upserted@chain'],
            chain: ['price.deleted@M1', 'price.upserted@chain'],
          },
        },
        // From chain-wide to one store: every other store is told it is gone.
        {
          store: 'M2',
          expect: {
            M1: ['price.deleted@chain'],
            M2: ['price.deleted@chain', 'price.upserted@M2'],
            M3: ['price.deleted@chain'],
            chain: ['price.deleted@chain', 'price.upserted@M2'],
          },
        },
        {
          store: '',
          expect: {
            M1: ['price.upserted@chain'],
            M2: ['price.deleted@M2', 'price.upserted@chain'],
            M3: ['price.upserted@chain'],
            chain: ['price.deleted@M2', 'price.upserted@chain'],
          },
        },
        {
          store: 'M1',
          expect: {
            M1: ['price.deleted@chain', 'price.upserted@M1'],
            M2: ['price.deleted@chain'],
            M3: ['price.deleted@chain'],
            chain: ['price.deleted@chain', 'price.upserted@M1'],
          },
        },
      ];
      for (const [index, step] of steps.entries()) {
        const posted = await t.post(`${API}/products/prices`, {
          prices: [priceInput('MX', 'MP1', 2.5, { store_number: step.store })],
        });
        expect(posted.statusCode, posted.body).toBe(200);
        for (const [name, token] of Object.entries(readers) as Array<[keyof typeof readers, string | undefined]>) {
          const events = await follow(cursors.get(name)!, token);
          expect(short(events), `step ${index} (${step.store || 'chain-wide'}), ${name}'s feed`).toEqual(
            step.expect[name],
          );
          if (events.length > 0) cursors.set(name, events[events.length - 1]!.sequence);
          const mirror = mirrors.get(name)!;
          applyPrices(mirror, events);
          expect(mirror, `step ${index}, ${name}'s mirror`).toEqual(await directPrices(name === 'chain' ? null : name));
          if (name !== 'chain') {
            // The store's own read agrees with its mirror: the record's price where it applies, else the master's.
            expect(await readPrice('MP1', name, token!), `step ${index}, ${name}'s read`).toBe(
              mirror.has('MX') ? 2.5 : 1,
            );
          }
        }
      }

      // A change that keeps the store is one event at that store; an identical re-send none.
      const changed = await t.post(`${API}/products/prices`, {
        prices: [priceInput('MX', 'MP1', 2.75, { store_number: 'M1' })],
      });
      expect(changed.statusCode).toBe(200);
      expect(short(await follow(cursors.get('chain')!))).toEqual(['price.upserted@M1']);
      const last = await feedEnd();
      expect(
        (await t.post(`${API}/products/prices`, { prices: [priceInput('MX', 'MP1', 2.75, { store_number: 'M1' })] }))
          .statusCode,
      ).toBe(200);
      expect(await follow(last)).toEqual([]);
    });

    it('delivers the same to webhooks filtered by store, in order, and their mirrors equal the direct reads', async () => {
      const filters = { M1: ['M1'], M2: ['M2'], both: ['M1', 'M2'] } as const;
      const subscribed: Record<string, Subscribed> = {};
      for (const [name, stores] of Object.entries(filters))
        subscribed[name] = await subscribe(t, { stores, types: ['price.upserted', 'price.deleted'] });
      /** The live prices of the subscription's stores, read from the records (chain-wide ones included). */
      const direct = async (stores: readonly string[]) => {
        const all = new Map<string, string | null>();
        for (const store of stores) for (const [id, at] of await directPrices(store)) all.set(id, at);
        return all;
      };
      // Each mirror starts from a full read, as a follower that subscribes does.
      const mirrors = new Map(
        await Promise.all(Object.entries(filters).map(async ([name, stores]) => [name, await direct(stores)] as const)),
      );
      try {
        const start = Math.min(...Object.values(subscribed).map((s) => s.start));
        for (const store of ['M2', 'M2', '', 'M1', 'M2']) {
          const posted = await t.post(`${API}/products/prices`, {
            prices: [
              priceInput('MW', 'MP2', 3, { store_number: store }),
              priceInput('MV', 'MP2', 4, { store_number: store === 'M1' ? 'M2' : 'M1' }),
            ],
          });
          expect(posted.statusCode, posted.body).toBe(200);
        }
        const feed = (await followFeed(t, start)) as FeedEvent[];
        const last = feed[feed.length - 1]!.sequence;
        for (const [name, stores] of Object.entries(filters)) {
          const s = subscribed[name]!;
          await waitUntil(
            async () => (await subscriptionState(t, s.id)).after_sequence >= last,
            `webhook ${name} delivered the feed`,
            20_000,
          );
          const received = s.receiver.deliveries.flatMap((d) => d.events) as FeedEvent[];
          const expected = matching(feed as never, {
            stores: [...stores],
            types: ['price.upserted', 'price.deleted'],
          }).filter((e) => e.sequence > s.start) as FeedEvent[];
          expect(
            received.map((e) => e.sequence),
            name,
          ).toEqual(expected.map((e) => e.sequence));
          const mirror = mirrors.get(name)!;
          applyPrices(mirror, received);
          expect(mirror, name).toEqual(await direct(stores));
        }
        // The old store's deletion comes before the new store's upsert.
        const moved = feed.filter((e) => e.data.price_id === 'MW').map((e) => `${e.type}@${e.store_number ?? 'chain'}`);
        expect(moved).toEqual([
          'price.upserted@M2',
          'price.deleted@M2',
          'price.upserted@chain',
          'price.deleted@chain',
          'price.upserted@M1',
          'price.deleted@M1',
          'price.upserted@M2',
        ]);
      } finally {
        for (const s of Object.values(subscribed)) {
          await t.del(`${API}/webhooks/${s.id}`);
          await s.receiver.close();
        }
      }
    });

    it('refuses to move a delivery or a customer order to another store (409), writing no event', async () => {
      const delivery = {
        order_number: 'MD1',
        datetime_expected: '2026-12-01T08:00:00Z',
        no_of_containers: 1,
        supplier_name: 'S',
        order_type: 1,
        order_lines: [{ line_number: 1, product_number: 'MP1', quantity: 2, target_stock_pool: 1 }],
      };
      expect((await t.post(`${API}/stores/M1/orders/deliveries`, { orders: [delivery] })).statusCode).toBe(200);
      const order = {
        order_number: 'MC1',
        customer_name: 'C',
        lines: [{ line_number: 1, product_number: 'MP1', quantity: 1, stock_pool: 1 }],
      };
      expect((await t.post(`${API}/stores/M1/orders/customerorders`, { orders: [order] })).statusCode).toBe(200);
      const last = await feedEnd();
      expect((await t.post(`${API}/stores/M2/orders/deliveries`, { orders: [delivery] })).statusCode).toBe(409);
      expect(
        (await t.post(`${API}/orders/deliveries`, { orders: [{ ...delivery, store_number: 'M2' }] })).statusCode,
      ).toBe(409);
      expect((await t.post(`${API}/stores/M2/orders/customerorders`, { orders: [order] })).statusCode).toBe(409);
      expect(
        (await t.post(`${API}/orders/customerorders`, { orders: [{ ...order, store_number: 'M2' }] })).statusCode,
      ).toBe(409);
      expect(await follow(last)).toEqual([]);
    });

    it('tells the old store whatever write path moves a store-scoped row (the triggers of every table whose events carry a store)', async () => {
      expect((await t.post(`${API}/stores/M1/locations`, { locations: [locationInput('ML')] })).statusCode).toBe(200);
      const list = await t.post(`${API}/stores/M1/productlists?app_username=u`, {
        product_list_name: 'Moving',
        product_list_type: 1,
        lines: [],
      });
      expect(list.statusCode, list.body).toBe(200);
      const listId = list.json().product_list_id as number;
      expect(
        (await t.post(`${API}/stores/M1/storeproducts`, { products: [{ product_number: 'MP2', min: 1 }] })).statusCode,
      ).toBe(200);
      const received = {
        order_number: 'MD2',
        datetime_expected: '2026-12-01T08:00:00Z',
        no_of_containers: 1,
        supplier_name: 'S',
        order_type: 1,
        order_lines: [{ line_number: 1, product_number: 'MP1', quantity: 2, target_stock_pool: 1 }],
      };
      expect((await t.post(`${API}/stores/M1/orders/deliveries`, { orders: [received] })).statusCode).toBe(200);
      const receiving = await t.post(`${API}/stores/M1/orders/deliveries/MD2/receive?appUserName=u`, {
        lines: [{ line_number: 1, received_quantity: 1 }],
      });
      expect(receiving.statusCode, receiving.body).toBe(200);
      const db = t.app.ctx.db;
      const moves = [
        {
          table: 'receipt_orders',
          where: sql`order_number = 'MD2'`,
          left: 'receipt.changed',
          arrived: 'receipt.changed',
          data: { order_number: 'MD2', is_submitted: false },
        },
        {
          table: 'locations',
          where: sql`location_code = 'ML'`,
          left: 'location.deleted',
          arrived: 'location.upserted',
          data: { location_code: 'ML' },
        },
        {
          table: 'product_lists',
          where: sql`id = ${listId}`,
          left: 'product_list.deleted',
          arrived: 'product_list.upserted',
          data: { product_list_id: listId, name: 'Moving', is_archived: false },
        },
        {
          table: 'store_products',
          where: sql`product_number = 'MP2'`,
          left: 'store_product.deleted',
          arrived: 'store_product.upserted',
          data: { product_number: 'MP2' },
        },
        {
          table: 'delivery_orders',
          where: sql`order_number = 'MD1'`,
          left: 'delivery.changed',
          arrived: 'delivery.changed',
          data: { order_number: 'MD1', status: 'open' },
        },
        {
          table: 'customer_orders',
          where: sql`order_number = 'MC1'`,
          left: 'customer_order.changed',
          arrived: 'customer_order.changed',
          data: { order_number: 'MC1', status_id: 1 },
        },
      ];
      for (const move of moves) {
        for (const [from, to] of [
          ['M1', 'M2'],
          ['M2', 'M1'],
        ]) {
          const last = await feedEnd();
          // The store alone changes: no write stamp moves, and the move still gives its events.
          await sql`update ${sql.id(move.table)} set store_number = ${to} where ${move.where} and store_number = ${from}`.execute(
            db,
          );
          const events = await follow(last);
          expect(
            events.map((e) => [e.type, e.store_number, e.data]),
            `${move.table} ${from} → ${to}`,
          ).toEqual([
            [move.left, from, move.data],
            [move.arrived, to, move.data],
          ]);
          expect(short(await follow(last, tokens[from as 'M1'])), `${move.table}: ${from}'s feed`).toEqual([
            `${move.left}@${from}`,
          ]);
        }
      }
      // A store renumbered: the old number's readers see it deleted, the new number's upserted.
      const last = await feedEnd();
      await sql`update stores set store_number = 'M9' where store_number = 'M3'`.execute(db);
      await sql`update stores set store_number = 'M3' where store_number = 'M9'`.execute(db);
      expect(short(await follow(last))).toEqual([
        'store.deleted@M3',
        'store.upserted@M9',
        'store.deleted@M9',
        'store.upserted@M3',
      ]);
      // A deleted row that moves tells no one again: its old store saw it deleted already.
      const before = await feedEnd();
      await sql`update product_prices set deleted_on = ${Date.now()}, updated_on = ${Date.now()} where price_id = 'MX'`.execute(
        db,
      );
      await sql`update product_prices set store_number = 'M2' where price_id = 'MX'`.execute(db);
      expect(short(await follow(before))).toEqual(['price.deleted@M1', 'price.deleted@M2']);
    });
  });
}
