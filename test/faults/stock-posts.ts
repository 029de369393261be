import { buildApp } from '../../src/app.js';
import { verifyAll } from '../../src/verify.js';
import { sharedDatabaseConfig } from '../helpers/server-process.js';

/**
 * The write the fault tests drive: a stock log post whose entries all carry the request's own
 * `reference`, so afterwards the stored entries of each request can be counted — all of them
 * for a 2xx, all or none for a refusal, never some (nothing half-applied, issue 27).
 */
export function stockLogBody(
  reference: string,
  products: readonly string[],
  lines: number,
  at = '2026-01-01T00:00:00Z',
) {
  return {
    storeproductlog: Array.from({ length: lines }, (_, i) => ({
      product_number: products[i % products.length],
      quantity: 1 + (i % 3),
      customer_order_line_number: 0,
      modification_datetime: at,
      reference,
    })),
  };
}

/** What one post got: its status (or no answer at all), envelope code and Retry-After. */
export interface PostOutcome {
  reference: string;
  lines: number;
  startedAt: number;
  endedAt: number;
  status: number | 'no answer';
  code?: string;
  retryAfter?: string | null;
}

/** Posts `lines` entries to a server process; an answer slower than `timeoutMillis` counts as none (a hang). */
export async function postStock(
  baseUrl: string,
  options: {
    token: string;
    store: string;
    reference: string;
    products: readonly string[];
    lines: number;
    timeoutMillis: number;
  },
): Promise<PostOutcome> {
  const { reference, lines } = options;
  const startedAt = Date.now();
  try {
    const response = await fetch(`${baseUrl}/api/v2/public/stores/${options.store}/products/stock/storeproductlogs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${options.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(stockLogBody(reference, options.products, lines)),
      signal: AbortSignal.timeout(options.timeoutMillis),
    });
    const text = await response.text();
    let code: string | undefined;
    try {
      code = (JSON.parse(text) as { code?: string }).code;
    } catch {
      code = `not JSON: ${text.slice(0, 100)}`;
    }
    return {
      reference,
      lines,
      startedAt,
      endedAt: Date.now(),
      status: response.status,
      code,
      retryAfter: response.headers.get('retry-after'),
    };
  } catch {
    return { reference, lines, startedAt, endedAt: Date.now(), status: 'no answer' };
  }
}

/** What the database holds of the posts: see `storedPosts`. */
export interface StoredPosts {
  /** 2xx answers whose entries are not all stored exactly once. */
  missing: PostOutcome[];
  /** Refused (or unanswered) posts with some but not all of their entries stored. */
  torn: PostOutcome[];
  /** Stored references no post sent. */
  unknown: string[];
  /** Refused posts stored whole: committed, but the answer was lost with the connection. */
  appliedButRefused: number;
  /** `verify` on the database. */
  violations: Awaited<ReturnType<typeof verifyAll>>;
}

/** Counts the stored entries of every post whose reference starts with `prefix`, and runs verify. */
export async function storedPosts(
  databaseUrl: string,
  token: string,
  prefix: string,
  outcomes: readonly PostOutcome[],
): Promise<StoredPosts> {
  const app = await buildApp(sharedDatabaseConfig(databaseUrl, token));
  try {
    const rows = await app.ctx.db
      .selectFrom('stock_logs')
      .select(['reference', (eb) => eb.fn.countAll<number>().as('entries')])
      .where('reference', 'like', `${prefix}%`)
      .groupBy('reference')
      .execute();
    const stored = new Map(rows.map((row) => [row.reference, Number(row.entries)]));
    const entriesOf = (outcome: PostOutcome) => stored.get(outcome.reference) ?? 0;
    const refused = outcomes.filter((o) => o.status !== 200);
    const known = new Set(outcomes.map((o) => o.reference));
    return {
      missing: outcomes.filter((o) => o.status === 200 && entriesOf(o) !== o.lines),
      torn: refused.filter((o) => entriesOf(o) !== 0 && entriesOf(o) !== o.lines),
      unknown: [...stored.keys()].filter(
        (reference): reference is string => reference !== null && !known.has(reference),
      ),
      appliedButRefused: refused.filter((o) => entriesOf(o) === o.lines).length,
      violations: await verifyAll(app.ctx.handle),
    };
  } finally {
    await app.close();
  }
}
