import { buildApp } from '../../src/app.js';
import { verifyAll } from '../../src/verify.js';
import { productInput, storeInput } from '../helpers/factories.js';
import { sharedDatabaseConfig } from '../helpers/server-process.js';

/**
 * Clients that post stock with an `Idempotency-Key` each and retry the same request, with the
 * same key, until it gets a definitive answer — as PRODUCT §3 tells an ERP to — while servers
 * die and come back under them (crash-retry.test.ts, rolling-restart.test.ts). Each request
 * books ENTRIES_PER_POST entries whose `reference` is its key, so afterwards every key must
 * have exactly ENTRIES_PER_POST entries: none lost, none doubled.
 */

export const TOKEN = 'faults-admin-token';
export const API = '/api/v2/public';
export const STORE = 'F1';
export const PRODUCTS = ['F-1', 'F-2', 'F-3', 'F-4'];
export const ENTRIES_PER_POST = 50;

/** What one keyed request went through until its definitive answer. */
export interface KeyedOutcome {
  key: string;
  /** The final answer: 2xx when the request is settled. */
  status: number;
  /** Tries that got no answer (connection refused or cut, 503). */
  unanswered: number;
  /** When the first try went unanswered (epoch ms), if one did. */
  firstUnansweredAt?: number;
  /** Answers that refused to settle it (409 "still being processed" and the like): must be none. */
  refusals: string[];
  /** The settling answer was a replay of an earlier try that had committed. */
  replayed: boolean;
  settledAt: number;
}

export async function seedFaultDatabase(databaseUrl: string): Promise<void> {
  const app = await buildApp(sharedDatabaseConfig(databaseUrl, TOKEN));
  try {
    const post = async (url: string, payload: unknown) => {
      const response = await app.inject({
        method: 'POST',
        url,
        payload: payload as object,
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      if (response.statusCode !== 200) throw new Error(`${url}: ${response.body}`);
    };
    await post(`${API}/stores`, { stores: [storeInput(STORE)] });
    await post(`${API}/products`, { products: PRODUCTS.map((p) => productInput(p)) });
  } finally {
    await app.close();
  }
}

const bodyOf = (key: string) =>
  JSON.stringify({
    storeproductlog: Array.from({ length: ENTRIES_PER_POST }, (_, i) => ({
      product_number: PRODUCTS[i % PRODUCTS.length],
      quantity: 1,
      customer_order_line_number: 0,
      modification_datetime: '2026-05-01T00:00:00Z',
      reference: key,
    })),
  });

/**
 * Sends one keyed post until it is settled (2xx) or `deadline` passes, each try to the base URL
 * `target(attempt)` names at that moment (a server may be down: the next try goes where the
 * caller points). Unanswered tries are retried after a short pause, as a client would.
 */
export async function postUntilSettled(
  key: string,
  target: (attempt: number) => string | undefined,
  deadline: number,
): Promise<KeyedOutcome> {
  const outcome: KeyedOutcome = { key, status: 0, unanswered: 0, refusals: [], replayed: false, settledAt: 0 };
  const body = bodyOf(key);
  for (let attempt = 0; Date.now() < deadline; attempt++) {
    const baseUrl = target(attempt);
    if (baseUrl === undefined) {
      await pause(50);
      continue;
    }
    let status: number;
    let text = '';
    let replayed = false;
    try {
      const response = await fetch(`${baseUrl}${API}/stores/${STORE}/products/stock/storeproductlogs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'idempotency-key': key },
        body,
        signal: AbortSignal.timeout(20_000),
      });
      status = response.status;
      text = await response.text();
      replayed = response.headers.get('idempotent-replayed') === 'true';
    } catch {
      status = 0; // refused, reset or cut off mid-answer: no answer
    }
    if (status >= 200 && status < 300) {
      return { ...outcome, status, replayed, settledAt: Date.now() };
    }
    if (status === 0 || status === 503) {
      outcome.unanswered++;
      outcome.firstUnansweredAt ??= Date.now();
    } else {
      outcome.refusals.push(`${status} ${text.slice(0, 200)}`);
    }
    outcome.status = status;
    await pause(50);
  }
  return outcome;
}

/**
 * `count` clients, each posting one keyed request after another until `stop` says so (the
 * request under way is still settled); request n of client c is keyed `${prefix}-${c}-${n}`
 * and tries the base URLs `targetOf(c, n)` names per attempt. All their outcomes, once done.
 */
export function keyedClients(
  count: number,
  prefix: string,
  targetOf: (client: number, n: number) => (attempt: number) => string | undefined,
  deadline: number,
): { stop(): void; outcomes: Promise<KeyedOutcome[]> } {
  let stopping = false;
  const clients = Array.from({ length: count }, async (_, client) => {
    const outcomes: KeyedOutcome[] = [];
    for (let n = 0; !stopping; n++)
      outcomes.push(await postUntilSettled(`${prefix}-${client}-${n}`, targetOf(client, n), deadline));
    return outcomes;
  });
  return { stop: () => (stopping = true), outcomes: Promise.all(clients).then((all) => all.flat()) };
}

/** Entries booked per key (reference) and verify's findings, read through an app of its own. */
export async function audit(databaseUrl: string): Promise<{ entriesByKey: Map<string, number>; problems: unknown[] }> {
  const app = await buildApp(sharedDatabaseConfig(databaseUrl, TOKEN));
  try {
    const rows = await app.ctx.db
      .selectFrom('stock_logs')
      .select(['reference', (eb) => eb.fn.countAll<number>().as('n')])
      .where('store_number', '=', STORE)
      .groupBy('reference')
      .execute();
    const entriesByKey = new Map(rows.map((row) => [String(row.reference), Number(row.n)]));
    return { entriesByKey, problems: await verifyAll(app.ctx.handle) };
  } finally {
    await app.close();
  }
}

export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The figures a closing note needs, as one line. */
export function summary(outcomes: readonly KeyedOutcome[], extra: Record<string, number | string>): string {
  const retried = outcomes.filter((o) => o.unanswered > 0);
  const parts = {
    requests: outcomes.length,
    settled: outcomes.filter((o) => o.status >= 200 && o.status < 300).length,
    'unanswered tries': outcomes.reduce((sum, o) => sum + o.unanswered, 0),
    'requests retried': retried.length,
    'retries replayed': retried.filter((o) => o.replayed).length,
    'retries applied as new': retried.filter((o) => !o.replayed).length,
    refusals: outcomes.reduce((sum, o) => sum + o.refusals.length, 0),
    ...extra,
  };
  return Object.entries(parts)
    .map(([name, value]) => `${name} ${value}`)
    .join(', ');
}
