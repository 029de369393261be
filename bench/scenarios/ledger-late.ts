/**
 * Issue 11, "Bench and proof": a late entry costs the same on a balance with 1,000,000
 * ledger rows as on one with 1,000. One service (npm start, its own process) holds two
 * balances of the stock store (one product each, no location, pool 1): the small one has
 * the 1,000-row tail of lib/ledger-model.ts `lateTimeline`, the big one 999,000 older rows
 * and then the same tail. Each run posts, on both balances, big and small alternating in
 * order from run to run: 1,000 late deltas, 100 late entries before the tail's count, and
 * 1,000 in-order deltas; judged: big ms / small ms of each (≤ 1.2).
 *
 * Before each post the bench checks, in the service's own tables, that the balance is where
 * the model says (last_at, last_count_at; for entries before a count, that the tail's count
 * is the first count after them): each post really is of its kind. After each run: the
 * level read over HTTP and the balance row equal the model's timestamp-order replay of
 * everything posted, the count's expected level is re-based to the model's, and
 * `npx store-ops verify` exits 0.
 */
import { getOk, timedPost } from '../lib/client.js';
import {
  freshDatabase,
  requirePostgres,
  storeOpsVerify,
  type BenchDatabase,
  type BenchDialect,
} from '../lib/ledger-db.js';
import {
  BalanceModel,
  kindProblem,
  lateTimeline,
  TEMPLATE_COPIES,
  TEMPLATE_ROWS,
  COPY_SHIFT_MS,
  type LateTimeline,
  type ModelEntry,
  type PostKind,
} from '../lib/ledger-model.js';
import { Resources } from '../lib/resources.js';
import type { ResultSpec, Sample, Scenario } from '../lib/scenario.js';
import { API, startServiceAt, type Service } from '../lib/service.js';
import { productNumber, seedStockMasterData, STOCK_LOGS_PATH, STOCK_STORE } from '../lib/stock.js';

const SMALL = 0;
const BIG = 1;

/** A model entry as a handheld posts it (interface §4.8): product only, so no location and pool 1. */
function entryBody(product: string, entries: readonly ModelEntry[]): string {
  return JSON.stringify({
    storeproductlog: entries.map((e) => ({
      product_number: product,
      quantity: e.milli / 1000,
      customer_order_line_number: 0,
      modification_datetime: new Date(e.at).toISOString(),
    })),
  });
}

const countsQuery = (entries: readonly ModelEntry[]) => (entries[0]?.count ? '?is_counted_quantity=true' : '');

function post(service: Service, product: string, entries: readonly ModelEntry[]): Promise<number> {
  const n = entries.length;
  return timedPost(
    service.baseUrl,
    `${STOCK_LOGS_PATH}${countsQuery(entries)}`,
    entryBody(product, entries),
    `created ${n}: applied ${n}, pending review 0`,
  );
}

interface Balance {
  product: string;
  productId: number;
  storeId: number;
  model: BalanceModel;
}

const balanceWhere = (b: Balance) =>
  `store_id = ${b.storeId} and product_id = ${b.productId} and location_id = 0 and pool = 1 and order_key = ''`;
/** The balance's ledger rows (the stock_ledger view, migration 0022): they name it by its id (migration 0021). */
const ledgerWhere = (b: Balance) => `balance_id = (select id from stock_balances where ${balanceWhere(b)})`;
const num = (value: unknown) => (value === null || value === undefined ? undefined : Number(value));

/** Throws unless the balance row and the ledger agree with the model about what `entries` are. */
async function assertKind(
  db: BenchDatabase,
  balance: Balance,
  kind: PostKind,
  entries: readonly ModelEntry[],
  countAt: number,
): Promise<void> {
  const [row] = await db.query<{ last_at: unknown; last_count_at: unknown }>(
    `select last_at, last_count_at from stock_balances where ${balanceWhere(balance)}`,
  );
  if (!row) throw new Error(`${balance.product}: no balance row`);
  if (num(row.last_at) !== balance.model.lastAt() || num(row.last_count_at) !== balance.model.lastCountAt()) {
    throw new Error(
      `${balance.product}: balance last_at ${row.last_at}/last_count_at ${row.last_count_at}, model ${balance.model.lastAt()}/${balance.model.lastCountAt()}`,
    );
  }
  const problem = kindProblem(balance.model, kind, entries, countAt);
  if (problem !== undefined) throw new Error(`${balance.product}: the ${kind} post is not what it claims: ${problem}`);
  if (kind === 'late-before-count') {
    const first = Math.min(...entries.map((e) => e.at));
    const [next] = await db.query<{ at: unknown }>(
      `select min(at) as at from stock_ledger where ${ledgerWhere(balance)} and is_count = 1 and at >= ${first}`,
    );
    if (num(next?.at) !== countAt)
      throw new Error(`${balance.product}: the first recorded count after ${first} is at ${next?.at}, not ${countAt}`);
  }
}

/** Throws unless the level (over HTTP and in the balance row) and the count's expected level equal the model's. */
async function assertLevels(service: Service, db: BenchDatabase, balance: Balance, countAt: number): Promise<void> {
  const modelMilli = balance.model.levelMilli();
  const answer = (
    await getOk(service.baseUrl, `${API}/stores/${STOCK_STORE}/products/${balance.product}/stock`, 'stock read')
  ).json<{
    products: Array<{ most_likely_stock: number; stock_pool_1?: number }>;
  }>();
  const read = answer.products[0]?.stock_pool_1 ?? answer.products[0]?.most_likely_stock;
  if (read === undefined || Math.round(read * 1000) !== modelMilli)
    throw new Error(`${balance.product}: the service reads ${read}, the model's replay gives ${modelMilli / 1000}`);
  const [row] = await db.query<{ quantity: unknown }>(
    `select quantity from stock_balances where ${balanceWhere(balance)}`,
  );
  if (num(row?.quantity) !== modelMilli)
    throw new Error(`${balance.product}: balance quantity ${row?.quantity}, model ${modelMilli}`);
  const [count] = await db.query<{ expected: unknown; counted: unknown }>(
    `select expected, counted from stock_ledger where ${ledgerWhere(balance)} and is_count = 1 and at = ${countAt}`,
  );
  const expected = balance.model.levelMilli(countAt);
  if (num(count?.expected) !== expected)
    throw new Error(
      `${balance.product}: the count at ${countAt} expects ${count?.expected}, re-based it should expect ${expected}`,
    );
}

/**
 * 998 copies of the big balance's 1,000-row template (posted over HTTP, so written by the
 * service) with the service stopped: every column of stock_logs copied — each row carries
 * its entry's posting (one row per entry, migration 0022) — and of stock_log_parts, which
 * the template's one-pool entries leave empty; only ids (+ k × 1,000) and moments
 * (+ k × COPY_SHIFT_MS) shifted, in the order the service would have given them; then the
 * balance set to the sum and latest moment of its ledger rows (and, on PostgreSQL, the
 * identity sequence past the new ids, and ANALYZE as autovacuum would run after such a load).
 */
async function copyTemplate(db: BenchDatabase, balance: Balance): Promise<void> {
  const [stats] = await db.query<{ n: unknown; lo: unknown; hi: unknown; posted: unknown }>(
    'select count(*) as n, min(id) as lo, max(id) as hi, count(balance_id) as posted from stock_logs',
  );
  if (
    num(stats?.n) !== TEMPLATE_ROWS ||
    num(stats?.lo) !== 1 ||
    num(stats?.hi) !== TEMPLATE_ROWS ||
    num(stats?.posted) !== TEMPLATE_ROWS
  ) {
    throw new Error(
      `stock_logs should hold exactly the template's ids 1–${TEMPLATE_ROWS}, each with its posting: ${JSON.stringify(stats)}`,
    );
  }
  const columns = async (table: string) =>
    (
      await db.query<{ name: string }>(
        db.dialect === 'sqlite'
          ? `select name from pragma_table_info('${table}') order by cid`
          : `select column_name as name from information_schema.columns where table_schema = current_schema() and table_name = '${table}' order by ordinal_position`,
      )
    ).map((c) => c.name);
  const copies = `(with recursive n(k) as (select 1 union all select k + 1 from n where k < ${TEMPLATE_COPIES}) select k from n) ks`;
  const copy = async (table: string, key: string, order: string, shifted: Record<string, string>) => {
    const cols = await columns(table);
    const select = cols.map((c) => (c in shifted ? `t.${c} + ks.k * ${shifted[c]}` : `t.${c}`));
    return `insert into ${table} (${cols.join(', ')}) select ${select.join(', ')} from ${table} t cross join ${copies} where t.${key} <= ${TEMPLATE_ROWS} order by ks.k, ${order}`;
  };
  const statements = [
    await copy('stock_logs', 'id', 't.id', { id: String(TEMPLATE_ROWS), modification_at: String(COPY_SHIFT_MS) }),
    await copy('stock_log_parts', 'log_id', 't.log_id, t.balance_id', {
      log_id: String(TEMPLATE_ROWS),
      seq: String(TEMPLATE_ROWS),
      at: String(COPY_SHIFT_MS),
    }),
    `update stock_balances set
       quantity = (select sum(delta) from stock_ledger where ${ledgerWhere(balance)}),
       last_at = (select max(at) from stock_ledger where ${ledgerWhere(balance)})
     where ${balanceWhere(balance)}`,
  ];
  if (db.dialect === 'postgres')
    statements.push(`select setval(pg_get_serial_sequence('stock_logs', 'id'), (select max(id) from stock_logs))`);
  await db.transaction(statements);
  if (db.dialect === 'postgres') await db.query('analyze stock_logs, stock_log_parts, stock_balances');
}

const KINDS: Array<{
  kind: PostKind;
  name: string;
  label: string;
  entries: (t: LateTimeline, round: number) => ModelEntry[];
}> = [
  {
    kind: 'late-deltas',
    name: 'deltas1000',
    label: '1,000 late deltas (before the latest entry, after the last count)',
    entries: (t, g) => t.lateDeltas(g),
  },
  {
    kind: 'late-before-count',
    name: 'beforecount100',
    label: '100 late deltas in the minute before a recorded count (re-basing it)',
    entries: (t, g) => t.lateBeforeCount(g),
  },
  { kind: 'in-order', name: 'inorder1000', label: '1,000 in-order deltas', entries: (t, g) => t.inOrder(g) },
];

function spec(dialect: BenchDialect, kind: (typeof KINDS)[number]): ResultSpec {
  const db = dialect === 'sqlite' ? 'SQLite' : 'PostgreSQL';
  return {
    name: `ledger.late.${kind.name}.${dialect === 'sqlite' ? 'sqlite' : 'pg'}`,
    description:
      `${db}: POST …/storeproductlogs of ${kind.label} (mean of 2 posts per balance per run, big and small in ABBA order) on a balance (one product, no location, pool 1) with 1,000,000 ledger rows, ` +
      `against the same post on a balance with 1,000 rows in the same service (npm start; same last 1,000 rows and moments on both; ` +
      `the big balance's 999,000 older rows are 998 raw-SQL copies of a 1,000-row post, shifted in time, with the service stopped, then store-ops verify)`,
    unit: 'ms',
    valueLabel: '1M-row balance',
    baselineLabel: '1k-row balance',
    baselineKind: 'service',
    target: {
      ratio: 1.2,
      comparison: '<=',
      description: `${kind.label} on a 1,000,000-row balance ≤ 1.2 × on a 1,000-row balance (${db}, issue 11)`,
    },
  };
}

function ledgerLate(dialect: BenchDialect): Scenario {
  const [own, ...companions] = KINDS.map((kind) => spec(dialect, kind));
  return {
    ...own!,
    companions,
    defaultRuns: 5,
    prepare: () =>
      new Resources().preparing(async (resources) => {
        if (dialect === 'postgres') await requirePostgres();
        const db = await freshDatabase(resources, dialect, 'ledger_late');
        const timeline = lateTimeline(Date.now());
        const balances: Balance[] = [productNumber(SMALL), productNumber(BIG)].map((product) => ({
          product,
          productId: 0,
          storeId: 0,
          model: new BalanceModel(),
        }));
        const big = balances[BIG]!;
        const started = Date.now();
        const progress = (what: string) => console.error(`  ${what} (${((Date.now() - started) / 1000).toFixed(1)} s)`);

        // 1. Master data and the big balance's template, over HTTP; then the service stops.
        let service = await startServiceAt(db.url);
        try {
          await seedStockMasterData(service.baseUrl, 2);
          await post(service, big.product, timeline.template);
        } finally {
          await service.stop();
        }
        const [store] = await db.query<{ id: unknown }>(`select id from stores where store_number = '${STOCK_STORE}'`);
        for (const balance of balances) {
          const [product] = await db.query<{ id: unknown }>(
            `select id from products where product_number = '${balance.product}'`,
          );
          balance.storeId = Number(store!.id);
          balance.productId = Number(product!.id);
        }
        // 2. The long history: 998 raw copies of the template, proven consistent by the service's own check.
        await copyTemplate(db, big);
        big.model.addPrefix(timeline.prefix.rows, timeline.prefix.sumMilli, timeline.prefix.lastAt);
        await db.disconnect();
        progress(`seeded ${timeline.prefix.rows.toLocaleString('en-US')} rows on ${big.product}`);
        progress(`store-ops verify on the seeded database: ok in ${await storeOpsVerify(db.url)} ms`);

        // 3. The service again, on the seeded database: the same tail on both balances, over HTTP.
        service = resources.add(await startServiceAt(db.url), (s) => s.stop());
        for (const balance of balances) {
          for (const part of [timeline.tail.before, [timeline.tail.count], timeline.tail.after]) {
            await post(service, balance.product, part);
            balance.model.post(part);
          }
        }
        for (const balance of balances) {
          const [rows] = await db.query<{ n: unknown }>(
            `select count(*) as n from stock_ledger where ${ledgerWhere(balance)}`,
          );
          const expected = balance === big ? 1_000_000 : 1_000;
          if (num(rows?.n) !== expected || balance.model.rows !== expected)
            throw new Error(`${balance.product}: ${rows?.n} ledger rows, expected ${expected}`);
          await assertLevels(service, db, balance, timeline.countAt);
        }

        /**
         * One round: each kind twice on each balance, in ABBA order (big first on even
         * rounds), each post checked to be of its kind; the mean ms per post on each balance.
         * Round r posts the timeline's rounds 2r and 2r + 1 of each kind on each balance.
         */
        const round = async (r: number, bigFirst: boolean) => {
          const ms: Record<PostKind, number[]> = {
            'late-deltas': [0, 0],
            'late-before-count': [0, 0],
            'in-order': [0, 0],
          };
          for (const kind of KINDS) {
            const posted = [0, 0];
            for (const index of bigFirst ? [BIG, SMALL, SMALL, BIG] : [SMALL, BIG, BIG, SMALL]) {
              const balance = balances[index]!;
              const entries = kind.entries(timeline, 2 * r + posted[index]!++);
              await assertKind(db, balance, kind.kind, entries, timeline.countAt);
              ms[kind.kind][index]! += (await post(service, balance.product, entries)) / 2;
              balance.model.post(entries);
            }
          }
          for (const balance of balances) await assertLevels(service, db, balance, timeline.countAt);
          return ms;
        };
        await round(0, true); // untimed warm-up
        progress('tails posted, warm-up round done');

        return {
          async measure(run): Promise<Sample> {
            const ms = await round(run + 1, run % 2 === 0);
            const verifyMs = await storeOpsVerify(db.url);
            const sample = (kind: PostKind): Sample => ({
              value: ms[kind][BIG]!,
              baseline: ms[kind][SMALL]!,
              extra: { 'verify ms': verifyMs },
            });
            return {
              ...sample('late-deltas'),
              companions: Object.fromEntries(
                KINDS.slice(1).map((kind) => [spec(dialect, kind).name, sample(kind.kind)]),
              ),
            };
          },
          close: () => resources.release(),
        };
      }),
  };
}

/** `ledger.late.*.sqlite`: the three posts on SQLite (companions of one scenario: they share the seeded balances). */
export const ledgerLateSqlite = ledgerLate('sqlite');
/** `ledger.late.*.pg`: the same on PostgreSQL (a fresh schema of BENCH_DATABASE_URL), skipped when it is not reachable. */
export const ledgerLatePg = ledgerLate('postgres');
