import SqliteDatabase from 'better-sqlite3';
import { sql } from 'kysely';
import { startBenchApp, tempDir } from '../lib/app.js';
import { profileOnce } from '../lib/profile.js';
import { Resources } from '../lib/resources.js';
import type { Scenario } from '../lib/scenario.js';
import { timed } from '../lib/stats.js';
import { STOCK_LOCATIONS, STOCK_STORE, copyStockFixture } from '../lib/stock.js';
import { verifyAll } from '../../src/verify.js';

const NAME = 'stock.verify.1m';
const ENTRIES = 1_000_000;
const PRODUCTS = 2_000;
/** Balances per product: unlocated, and each location in its default pool (else 1). */
const SLOTS_PER_PRODUCT = 1 + STOCK_LOCATIONS.length;
const BALANCES = PRODUCTS * SLOTS_PER_PRODUCT;

/** The plain grouped sum the check is compared with. */
const GROUPED_SUM = sql<{ total: number }>`
  select store_id, product_id, location_id, pool, order_key, sum(delta) as total
  from stock_ledger
  group by store_id, product_id, location_id, pool, order_key`;

/**
 * 1,000,000 applied entries written with raw SQL (building them through the API would take
 * many minutes; this scenario measures the check, not the writes): one stock_logs row and
 * one stock_ledger row each, 100 per balance over 10,000 balances (2,000 products ×
 * unlocated + 4 locations), in time order, and every balance set to the sum of its ledger
 * rows — consistent, so verify must find nothing.
 */
function generateLedger(file: string): void {
  const database = new SqliteDatabase(file);
  try {
    // Throw-away test data: no journal or fsync while generating; the app reopens it in WAL mode.
    database.pragma('journal_mode = MEMORY');
    database.pragma('synchronous = OFF');
    database.pragma('cache_size = -262144');
    database.pragma('foreign_keys = ON');
    const store = database.prepare('select id, store_number from stores where store_number = ?').get(STOCK_STORE) as { id: number; store_number: string };
    const base = Date.now() - 60 * 86_400_000;
    database.transaction(() => {
      database.exec(`
        create temp table slots (slot integer primary key, product_id, product_number, barcode, price, purchase_price, purchase_unit_quantity,
          location_id, location_code, pool);
        insert into temp.slots
        select (p.rn - 1) * ${SLOTS_PER_PRODUCT} + l.n, p.id, p.product_number, p.barcode, p.price, p.purchase_price, p.purchase_unit_quantity,
          l.location_id, l.location_code, l.pool
        from (select row_number() over (order by id) as rn, * from products) p
        cross join (
          select 0 as n, 0 as location_id, null as location_code, 1 as pool
          union all
          select row_number() over (order by id), id, location_code, coalesce(default_stock_pool, 1) from locations where store_id = ${store.id}
        ) l;`);
      const slots = (database.prepare('select count(*) as n from temp.slots').get() as { n: number }).n;
      if (slots !== BALANCES) throw new Error(`expected ${BALANCES} balance slots, made ${slots}`);
      database.exec(`
        insert into stock_logs (id, store_id, store_number, product_id, product_number, location_id, location_code, modification_at,
          is_count, is_from_receipt, quantity, pool_quantities, review_status, is_applied, app_user_name, barcode, price, purchase_price,
          purchase_unit_quantity, created_on, updated_on, created_by, modified_by)
        with recursive n(k) as (select 0 union all select k + 1 from n where k < ${ENTRIES - 1}),
          e as (select k, (k * 7919) % 4001 - 1500 as d from n)
        select e.k + 1, ${store.id}, '${store.store_number}', s.product_id, s.product_number, nullif(s.location_id, 0), s.location_code,
          ${base} + e.k * 50, 0, 0, case when e.d = 0 then 1 else e.d end,
          case s.pool when 1 then json_array(case when e.d = 0 then 1 else e.d end, null, null, null, null, null, null, null, null, null)
                      else json_array(null, case when e.d = 0 then 1 else e.d end, null, null, null, null, null, null, null, null) end,
          0, 1, 'bench', s.barcode, s.price, s.purchase_price, s.purchase_unit_quantity, ${base} + e.k * 50, ${base} + e.k * 50, 'bench', 'bench'
        from e join temp.slots s on s.slot = e.k % ${BALANCES};

        insert into stock_ledger (log_id, store_id, product_id, location_id, pool, order_key, at, delta, is_count, counted, expected)
        select l.id, l.store_id, l.product_id, coalesce(l.location_id, 0), s.pool, '', l.modification_at, l.quantity, 0, null, null
        from stock_logs l join temp.slots s on s.slot = (l.id - 1) % ${BALANCES};

        insert into stock_balances (store_id, store_number, product_id, location_id, pool, order_key, quantity, last_at, last_count_at, updated_on)
        select store_id, '${store.store_number}', product_id, location_id, pool, order_key, sum(delta), max(at), null, max(at)
        from stock_ledger group by store_id, product_id, location_id, pool, order_key;`);
    })();
    const ledger = (database.prepare('select count(*) as n from stock_ledger').get() as { n: number }).n;
    if (ledger !== ENTRIES) throw new Error(`generated ${ledger} ledger entries, expected ${ENTRIES}`);
    database.pragma('journal_mode = WAL');
  } finally {
    database.close();
  }
}

/** Issue 5: `store-ops verify` over 1,000,000 ledger entries ≤ 2 × a plain grouped sum of them. */
export const stockVerify: Scenario = {
  name: NAME,
  description:
    `verifyAll (src/verify.ts, what store-ops verify runs) over ${ENTRIES.toLocaleString('en-US')} ledger entries on ${BALANCES.toLocaleString('en-US')} balances ` +
    `(${PRODUCTS} products) against a plain select … sum(delta) … group by of the balance key over the same stock_ledger, both through the app's ` +
    'database handle; the entries are generated with raw SQL inserts into stock_logs, stock_ledger and stock_balances (consistent: balances = sums) ' +
    'in a file migrated by buildApp, because this measures the check, not the writes',
  unit: 'ms',
  valueLabel: 'verify',
  baselineLabel: 'group by',
  target: { ratio: 2, comparison: '<=', description: `verify over ${ENTRIES.toLocaleString('en-US')} ledger entries ≤ 2 × a plain SUM … GROUP BY over the same table` },

  prepare: () =>
    new Resources().preparing(async (resources) => {
      const temp = resources.add(tempDir('stock-verify'), (t) => t.remove());
      generateLedger(await copyStockFixture(PRODUCTS, temp.dir, 'app'));
      const bench = resources.add(await startBenchApp(temp.dir, 'app'), (b) => b.close());
      const handle = bench.app.ctx.handle;

      const verify = async () => {
        const { ms, result } = await timed(() => profileOnce(NAME, () => verifyAll(handle)));
        if (result.length > 0) throw new Error(`verify found ${result.length} violations, e.g. ${result[0]!.detail}`);
        return ms;
      };
      const groupBy = async () => {
        const { ms, result } = await timed(() => GROUPED_SUM.execute(handle.db));
        if (result.rows.length !== BALANCES) throw new Error(`the grouped sum gave ${result.rows.length} balances, expected ${BALANCES}`);
        return ms;
      };
      // Untimed: one of each, so the first run does not pay for reading the file into the cache.
      await groupBy();
      await verify();

      return {
        async measure(run) {
          // Alternate who goes first, so a drift in machine speed favours neither side.
          let baseline = run % 2 === 1 ? await groupBy() : 0;
          const value = await verify();
          if (run % 2 === 0) baseline = await groupBy();
          return { value, baseline };
        },
        close: () => resources.release(),
      };
    }),
};
