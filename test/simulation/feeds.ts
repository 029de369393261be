import type { FastifyInstance } from 'fastify';
import { createToken } from '../../src/modules/tokens/service.js';
import type { ChainModel } from './model.js';
import { API } from './plans/plan.js';

/**
 * Feed followers of a sequence (issue 40 item 2): one per store token (S1, S2, W1) and one
 * chain-wide, each keeping a mirror from its own feed alone — the records it is told of, by
 * their keys: prices (and the store each applies to), product lists (archived or not),
 * deliveries and customer orders (their store). After a record moved and at the end of a
 * sequence, every mirror must equal the model's view of that reader's stores: a store the
 * record left that was not told would keep it.
 */

interface FeedEvent {
  sequence: number;
  type: string;
  store_number: string | null;
  data: Record<string, unknown>;
}

interface Mirror {
  prices: Map<string, string | null>;
  lists: Map<number, boolean>;
  deliveries: Map<string, string | null>;
  orders: Map<string, string | null>;
}

interface Reader {
  name: string;
  /** null: a chain-wide token. */
  stores: readonly string[] | null;
  token: string;
  after: number;
  mirror: Mirror;
}

const READERS: Array<{ name: string; stores: readonly string[] | null }> = [
  { name: 'S1', stores: ['S1'] },
  { name: 'S2', stores: ['S2'] },
  { name: 'W1', stores: ['W1'] },
  { name: 'chain', stores: null },
];

export class FeedMirrors {
  private constructor(
    private readonly app: FastifyInstance,
    private readonly readers: Reader[],
  ) {}

  /** Followers that start at the feed's end now (after the chain's set-up: nothing to mirror yet). */
  static async start(app: FastifyInstance, run: string): Promise<FeedMirrors> {
    const readers: Reader[] = [];
    for (const { name, stores } of READERS) {
      const token = await createToken(app.ctx.db, {
        name: `${run}-feed-${name}`,
        role: stores === null ? 'read' : 'store',
        stores: stores === null ? undefined : [...stores],
        createdBy: 'simulation',
      });
      readers.push({
        name,
        stores,
        token,
        after: 0,
        mirror: { prices: new Map(), lists: new Map(), deliveries: new Map(), orders: new Map() },
      });
    }
    const mirrors = new FeedMirrors(app, readers);
    for (const reader of readers) {
      const { last } = await mirrors.follow(reader);
      reader.after = last;
    }
    return mirrors;
  }

  private async follow(reader: Reader): Promise<{ events: FeedEvent[]; last: number }> {
    const events: FeedEvent[] = [];
    let after = reader.after;
    for (;;) {
      const response = await this.app.inject({
        method: 'GET',
        url: `${API}/events?after=${after}&limit=1000`,
        headers: { authorization: `Bearer ${reader.token}` },
      });
      if (response.statusCode !== 200)
        throw new Error(`feed of ${reader.name} answered ${response.statusCode}: ${response.body.slice(0, 300)}`);
      const page = response.json() as { events: FeedEvent[]; next_after: number };
      events.push(...page.events);
      if (page.next_after === after) return { events, last: after };
      after = page.next_after;
    }
  }

  /** Reads each follower's new events into its mirror; a difference from the model, described, or undefined. */
  async check(model: ChainModel): Promise<string | undefined> {
    for (const reader of this.readers) {
      const { events, last } = await this.follow(reader);
      reader.after = last;
      for (const event of events) apply(reader.mirror, event);
      const want = expected(model, reader.stores);
      for (const part of ['prices', 'lists', 'deliveries', 'orders'] as const) {
        const have = describe(reader.mirror[part]);
        const should = describe(want[part]);
        if (have !== should)
          return `the ${reader.name} feed's mirror of ${part} is ${have}, the model's view ${should}`;
      }
    }
    return undefined;
  }
}

function apply(mirror: Mirror, event: FeedEvent): void {
  const data = event.data;
  switch (event.type) {
    case 'price.upserted':
      mirror.prices.set(String(data.price_id), event.store_number);
      break;
    case 'price.deleted':
      mirror.prices.delete(String(data.price_id));
      break;
    case 'product_list.upserted':
      mirror.lists.set(Number(data.product_list_id), data.is_archived === true);
      break;
    case 'product_list.deleted':
      mirror.lists.delete(Number(data.product_list_id));
      break;
    case 'delivery.changed':
      mirror.deliveries.set(String(data.order_number), event.store_number);
      break;
    case 'customer_order.changed':
      mirror.orders.set(String(data.order_number), event.store_number);
      break;
  }
}

/** The model's records a reader of these stores sees (chain-wide records included). */
function expected(model: ChainModel, stores: readonly string[] | null): Mirror {
  const sees = (store: string | null) => store === null || stores === null || stores.includes(store);
  return {
    prices: new Map([...model.prices].filter(([, store]) => sees(store))),
    lists: new Map(
      model.productLists
        .filter((l) => l.state !== 'deleted' && sees(l.store))
        .map((l) => [l.id, l.state === 'archived']),
    ),
    deliveries: new Map(model.deliveries.filter((d) => sees(d.store)).map((d) => [d.number, d.store])),
    orders: new Map(model.orders.filter((o) => sees(o.store)).map((o) => [o.number, o.store])),
  };
}

const describe = (map: Map<unknown, unknown>) =>
  JSON.stringify([...map].sort((a, b) => String(a[0]).localeCompare(String(b[0]))));
