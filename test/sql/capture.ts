import { format } from 'sql-formatter';
import { listenToStatements } from '../../src/db/statement-log.js';
import { API, buildTestApp, type TestApp } from '../helpers/build.js';
import type { TestDialect } from '../helpers/dialects.js';
import { locationInput, productInput, reasonCodeInput, storeInput } from '../helpers/factories.js';

/**
 * The SQL of the service's hot and tricky flows, as it runs: one fixed scenario of requests on
 * a fresh database, each flow's statements recorded once each and listed sorted by their text:
 * on PostgreSQL a request sends some reads at once on several connections, so the order they
 * arrive in is not the code's and would move between runs. Transaction control (begin,
 * commit, savepoints) is left out. `npm run sql` writes them to sql/<dialect>/<flow>.sql; the test beside
 * this file fails when the code sends other SQL than the checked-in files show, so every change
 * of a query shows in review (the way immich's sync-sql does it).
 *
 * The scenario is deterministic: the same requests in the same order, so the same statement
 * texts (IN lists are padded to powers of two by their size, db/in-list.ts).
 */

export const FLOWS = {
  booking:
    'POST …/storeproductlogs: deltas with locations and reasons, a late delta, a count (booking, balance plan, stamps)',
  review: 'POST …/storeproductlogs/review: approving an entry that waited for review',
  lookup: 'GET /stores/{s}/products/{p}/stock: the handheld look-up (compiled, prepared reads)',
  'stock-list': 'GET /storeproducts/stock by store, page 2 by Page_Start',
  'log-pull': 'GET /products/stock/storeproductlogs by last_modified_date, pages 1 and 2 by Page_Start (the ERP pull)',
  'delta-pull':
    'GET /storeproducts/stock by last_stock_modified_datetime, pages 1 and 2 by Page_Start (the ERP delta pull: counted once, page 2 walks on from page 1)',
  receiving: 'POST …/orders/deliveries/{o}/receive with submit, then GET /orders/receipts',
  picking: 'PUT …/orders/customerorder: picks of an order, then a release to 0',
  'stock-filters':
    'GET /storeproducts/stock by location_code, below_zero and not_counted_since, then GET /stores/{s}/storeproducts/stock.csv (issue 43)',
} as const;

export type Flow = keyof typeof FLOWS;

const STORE = 'Q1';
const PRODUCTS = ['QP1', 'QP2', 'QP3', 'QP4'];
const LOGS = `${API}/stores/${STORE}/products/stock/storeproductlogs`;

async function ok(
  response: Promise<{ statusCode: number; body: string }>,
  what: string,
): Promise<{ statusCode: number; body: string; json(): any }> {
  const answer = (await response) as { statusCode: number; body: string; json(): any };
  if (answer.statusCode !== 200) throw new Error(`${what}: ${answer.statusCode} ${answer.body}`);
  return answer;
}

async function setUp(t: TestApp): Promise<void> {
  await ok(t.post(`${API}/stores`, { stores: [storeInput(STORE)] }), 'stores');
  await ok(t.post(`${API}/products`, { products: PRODUCTS.map((n) => productInput(n)) }), 'products');
  await ok(
    t.post(`${API}/reasoncodes`, {
      reason_codes: [
        reasonCodeInput(10, { is_loss: true, reason_code_description: 'Damaged' }),
        reasonCodeInput(30, { is_loss: true, default_review_status: 1, reason_code_description: 'Theft' }),
      ],
    }),
    'reason codes',
  );
  await ok(
    t.post(`${API}/stores/${STORE}/locations`, { locations: [locationInput('A-01'), locationInput('B-01')] }),
    'locations',
  );
  // Stock to list, pull and pick from, booked before any flow is recorded.
  const opening = PRODUCTS.map((product_number) => ({
    product_number,
    customer_order_line_number: 0,
    quantity: 20,
    location_code: 'A-01',
    modification_datetime: '2026-01-01T08:00:00Z',
  }));
  await ok(t.post(LOGS, { storeproductlog: opening }), 'opening stock');
}

/** Each flow's requests; each returns nothing and throws when an answer is not 200. */
const SCENARIO: Record<Flow, (t: TestApp, memo: Map<string, unknown>) => Promise<void>> = {
  async booking(t) {
    await ok(
      t.post(`${LOGS}?appUserName=anna`, {
        storeproductlog: [
          {
            product_number: 'QP1',
            customer_order_line_number: 0,
            quantity: -2,
            reason_code: 10,
            location_code: 'A-01',
            modification_datetime: '2026-01-02T09:00:00Z',
          },
          {
            product_number: 'QP2',
            customer_order_line_number: 0,
            quantity: 5,
            location_code: 'B-01',
            modification_datetime: '2026-01-02T09:01:00Z',
          },
          // Late: before the balance's latest entry; no count follows it, so it is booked without reading history.
          {
            product_number: 'QP3',
            customer_order_line_number: 0,
            quantity: 1,
            location_code: 'A-01',
            modification_datetime: '2025-12-31T09:00:00Z',
          },
        ],
      }),
      'deltas',
    );
    await ok(
      t.post(`${LOGS}?is_counted_quantity=true`, {
        storeproductlog: [
          {
            product_number: 'QP1',
            customer_order_line_number: 0,
            quantity: 17,
            location_code: 'A-01',
            modification_datetime: '2026-01-03T07:00:00Z',
          },
        ],
      }),
      'count',
    );
  },
  async review(t, memo) {
    const pending = await ok(
      t.post(LOGS, {
        storeproductlog: [
          {
            product_number: 'QP4',
            customer_order_line_number: 0,
            quantity: -1,
            reason_code: 30,
            location_code: 'A-01',
            modification_datetime: '2026-01-03T08:00:00Z',
          },
        ],
      }),
      'entry to review',
    );
    memo.set('pending', pending.json().data);
    await ok(t.post(`${LOGS}/review`, { ids: pending.json().data, approve: true }), 'review');
  },
  async lookup(t) {
    await ok(t.get(`${API}/stores/${STORE}/products/QP1/stock`), 'look-up');
    await ok(t.get(`${API}/stores/${STORE}/products/QP2/stock?include_locations=true`), 'look-up with locations');
  },
  async 'stock-list'(t) {
    await ok(t.get(`${API}/storeproducts/stock?store_number=${STORE}&Page_Size=2&Page_Start=2`), 'stock list page 2');
  },
  async 'log-pull'(t) {
    const since = encodeURIComponent('2020-01-01T00:00:00Z');
    await ok(
      t.get(`${API}/products/stock/storeproductlogs?last_modified_date=${since}&Page_Size=3&Page_Start=1`),
      'log pull page 1',
    );
    await ok(
      t.get(`${API}/products/stock/storeproductlogs?last_modified_date=${since}&Page_Size=3&Page_Start=2`),
      'log pull page 2',
    );
  },
  async 'delta-pull'(t) {
    const since = encodeURIComponent('2020-01-01T00:00:00Z');
    await ok(
      t.get(`${API}/storeproducts/stock?last_stock_modified_datetime=${since}&Page_Size=2&Page_Start=1`),
      'delta pull page 1',
    );
    await ok(
      t.get(`${API}/storeproducts/stock?last_stock_modified_datetime=${since}&Page_Size=2&Page_Start=2`),
      'delta pull page 2',
    );
  },
  async receiving(t) {
    await ok(
      t.post(`${API}/stores/${STORE}/orders/deliveries`, {
        orders: [
          {
            order_number: 'QD1',
            order_type: 1,
            datetime_expected: '2026-01-05T10:00:00Z',
            no_of_containers: 1,
            order_lines: [{ line_number: 1, product_number: 'QP2', quantity: 6, target_stock_pool: 1 }],
          },
        ],
      }),
      'delivery',
    );
    await ok(
      t.post(`${API}/stores/${STORE}/orders/deliveries/QD1/receive?appUserName=anna`, {
        lines: [{ line_number: 1, received_quantity: 6 }],
        submit: true,
      }),
      'receive',
    );
    await ok(t.get(`${API}/orders/receipts?receipt_type=1&order_number=QD1`), 'receipts');
  },
  async picking(t) {
    await ok(
      t.post(`${API}/stores/${STORE}/orders/customerorders`, {
        orders: [{ order_number: 'QO1', lines: [{ line_number: 1, product_number: 'QP3', quantity: 2 }] }],
      }),
      'order',
    );
    await ok(
      t.put(`${API}/stores/${STORE}/orders/customerorder`, {
        order_number: 'QO1',
        lines: [{ line_number: 1, picked_quantity: 2, stock_location: 'A-01' }],
        picked_username: 'anna',
      }),
      'pick',
    );
    await ok(
      t.put(`${API}/stores/${STORE}/orders/customerorder`, {
        order_number: 'QO1',
        lines: [{ line_number: 1, picked_quantity: 0 }],
      }),
      'release',
    );
  },
  async 'stock-filters'(t) {
    const since = encodeURIComponent('2026-01-03T00:00:00Z');
    await ok(
      t.get(
        `${API}/storeproducts/stock?store_number=${STORE}&location_code=A-01&below_zero=false&not_counted_since=${since}&Page_Size=2`,
      ),
      'stock list by the stock filters',
    );
    await ok(
      t.get(`${API}/stores/${STORE}/storeproducts/stock.csv?location_code=A-01&not_counted_since=${since}`),
      'export at a location, not counted since',
    );
    await ok(
      t.get(`${API}/stores/${STORE}/storeproducts/stock.csv?below_zero=true&exclude_customer_order_stock=true`),
      'export below zero, free stock',
    );
  },
};

/**
 * Statements of the app's background work (the change feed's numbering, webhook deliveries:
 * modules/events/upkeep.ts, modules/webhooks), which run on timers, so whether one falls into a
 * flow's window is chance: left out. A flow's own writes of events stay in.
 */
const BACKGROUND_WORK = /sequence is null|event_counter|:event sequencer|webhook_subscriptions/;
/**
 * The credential look-up: a token is read once and then kept for a second (plugins/auth.ts), so
 * whether a flow reads it depends on how long the flows before it took. Not a flow's own SQL.
 */
const CREDENTIAL_LOOKUP = /from "api_tokens"/;
const TRANSACTION_CONTROL = /^\s*(begin|commit|rollback|savepoint|release)\b/i;

/** Runs the scenario on a fresh database of `dialect`: each flow's statements, once each, sorted. */
export async function captureSql(dialect: TestDialect): Promise<Map<Flow, string[]>> {
  const t = await buildTestApp(dialect);
  const captured = new Map<Flow, string[]>();
  try {
    await setUp(t);
    const memo = new Map<string, unknown>();
    for (const flow of Object.keys(FLOWS) as Flow[]) {
      const seen = new Set<string>();
      listenToStatements(t.app.ctx.db, (sqlText) => {
        if (!TRANSACTION_CONTROL.test(sqlText) && !BACKGROUND_WORK.test(sqlText) && !CREDENTIAL_LOOKUP.test(sqlText))
          seen.add(sqlText);
      });
      try {
        await SCENARIO[flow](t, memo);
      } finally {
        listenToStatements(t.app.ctx.db);
      }
      captured.set(flow, [...seen].sort());
    }
  } finally {
    await t.close();
    await dialect.cleanup();
  }
  return captured;
}

/** One statement laid out for reading (sql-formatter, the dialect's own grammar); as sent when it cannot parse it. */
function layOut(dialect: TestDialect['name'], sqlText: string): string {
  try {
    return format(sqlText, {
      language: dialect === 'postgres' ? 'postgresql' : 'sqlite',
      keywordCase: 'lower',
      tabWidth: 2,
    });
  } catch {
    return sqlText.trim();
  }
}

/** The file text of one flow: what it is, then each statement laid out, ended by `;`. */
export function sqlFileText(dialect: TestDialect['name'], flow: Flow, statements: readonly string[]): string {
  const header = `-- ${flow} (${dialect}): ${FLOWS[flow]}\n-- Generated by \`npm run sql\` (test/sql/capture.ts): do not edit. Each statement once, sorted by text.\n`;
  return `${header}${statements.map((s) => `\n${layOut(dialect, s).replace(/;\s*$/, '')};\n`).join('')}`;
}

/** Where the checked-in file of a flow lives. */
export const sqlFilePath = (root: string, dialect: TestDialect['name'], flow: Flow) =>
  `${root}/sql/${dialect}/${flow}.sql`;
