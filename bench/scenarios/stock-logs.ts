import SqliteDatabase from 'better-sqlite3';
import { tempDir } from '../lib/app.js';
import { picker } from '../lib/data.js';
import { profileOnce } from '../lib/profile.js';
import { Resources } from '../lib/resources.js';
import type { Scenario } from '../lib/scenario.js';
import { STOCK_LOGS_PATH, STOCK_STORE, StockClock, copyStockFixture, startStockApp, stockBody, stockEntries, timedStockPost, type StockEntry } from '../lib/stock.js';

const NAME = 'stock.logs.post1000';
const ENTRIES = 1_000;
const PRODUCTS = 2_000;
/** Requests per side in one run (their mean is the run's figure): one 1,000-entry post is short, and this machine's speed drifts within a second, so each run takes several of each side in turn. */
const POSTS_PER_RUN = 8;
const WARMUP_POSTS = 2;
/** Who the app records as the author (the admin token's principal); the raw side writes the same. */
const ACTOR = 'admin';

interface MasterData {
  store: { id: number; store_number: string };
  products: Map<string, { id: number; barcode: string | null; price: number | null; purchase_price: number | null; purchase_unit_quantity: number | null }>;
  locations: Map<string, { id: number; default_stock_pool: number | null }>;
  reasons: Map<number, { description: string; is_loss: number; is_gain: number }>;
}

/** The ids a raw importer would cache: read once from its database, untimed. */
function readMasterData(database: SqliteDatabase.Database): MasterData {
  const store = database.prepare('select id, store_number from stores where store_number = ?').get(STOCK_STORE) as MasterData['store'];
  const products = new Map(
    (database.prepare('select id, product_number, barcode, price, purchase_price, purchase_unit_quantity from products').all() as Array<{ product_number: string } & Parameters<MasterData['products']['set']>[1]>).map(
      (row) => [row.product_number, row],
    ),
  );
  const locations = new Map(
    (database.prepare('select id, location_code, default_stock_pool from locations where store_id = ?').all(store.id) as Array<{ location_code: string; id: number; default_stock_pool: number | null }>).map(
      (row) => [row.location_code, row],
    ),
  );
  const reasons = new Map(
    (database.prepare('select reason_code, reason_code_description as description, is_loss, is_gain from reason_codes').all() as Array<{ reason_code: number } & Parameters<MasterData['reasons']['set']>[1]>).map(
      (row) => [row.reason_code, row],
    ),
  );
  return { store, products, locations, reasons };
}

/**
 * The baseline: what booking 1,000 entries needs at the least — per entry one stock_logs
 * row (the same columns and values the app stores), one stock_ledger row and an upsert of
 * its balance (quantity = quantity + delta), with prepared statements in one immediate
 * transaction. Converting the posted objects (reason-code sign, pool, thousandths, epoch
 * ms, ids from cached maps) is inside the timing, as it is for the app.
 */
function rawBooker(file: string) {
  const database = new SqliteDatabase(file);
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = NORMAL');
  database.pragma('foreign_keys = ON');
  const master = readMasterData(database);
  const insertLog = database.prepare(`
    insert into stock_logs (store_id, store_number, product_id, product_number, location_id, location_code, reason_code,
      reason_code_description, modification_at, is_count, is_from_receipt, quantity, pool_quantities, counted_quantity,
      review_status, is_applied, app_user_name, reference, barcode, price, purchase_price, purchase_unit_quantity,
      created_on, updated_on, created_by, modified_by)
    values (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0, ?, ?, null, 0, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const insertLedger = database.prepare(`
    insert into stock_ledger (log_id, store_id, product_id, location_id, pool, order_key, at, delta, is_count, counted, expected)
    values (?, ?, ?, ?, ?, '', ?, ?, 0, null, null)`);
  const upsertBalance = database.prepare(`
    insert into stock_balances (store_id, store_number, product_id, location_id, pool, order_key, quantity, last_at, last_count_at, updated_on)
    values (?, ?, ?, ?, ?, '', ?, ?, null, ?)
    on conflict (store_id, product_id, location_id, pool, order_key) do update set
      quantity = quantity + excluded.quantity, last_at = max(coalesce(last_at, 0), excluded.last_at), updated_on = excluded.updated_on`);
  const { store } = master;
  const book = database.transaction((entries: readonly StockEntry[], now: number) => {
    for (const entry of entries) {
      const product = master.products.get(entry.product_number)!;
      const location = entry.location_code === undefined ? undefined : master.locations.get(entry.location_code)!;
      const reason = entry.reason_code === undefined ? undefined : master.reasons.get(entry.reason_code)!;
      const quantity = Math.round(entry.quantity * 1000);
      const delta = reason?.is_loss === 1 ? -Math.abs(quantity) : reason?.is_gain === 1 ? Math.abs(quantity) : quantity;
      const pool = entry.pool_location ?? location?.default_stock_pool ?? 1;
      const pools = new Array<number | null>(10).fill(null);
      pools[pool - 1] = delta;
      const at = Date.parse(entry.modification_datetime);
      const logId = insertLog.run(
        store.id, store.store_number, product.id, entry.product_number, location?.id ?? null, entry.location_code ?? null,
        entry.reason_code ?? null, reason?.description ?? null, at, delta, JSON.stringify(pools), entry.app_user_name ?? null,
        entry.reference ?? null, product.barcode, product.price, product.purchase_price, product.purchase_unit_quantity, now, now, ACTOR, ACTOR,
      ).lastInsertRowid;
      insertLedger.run(logId, store.id, product.id, location?.id ?? 0, pool, at, delta);
      upsertBalance.run(store.id, store.store_number, product.id, location?.id ?? 0, pool, delta, at, now);
    }
  });
  return {
    post(entries: readonly StockEntry[]): number {
      const start = process.hrtime.bigint();
      book.immediate(entries, Date.now());
      return Number(process.hrtime.bigint() - start) / 1e6;
    },
    close: () => database.close(),
  };
}

/** Issue 5: booking a 1,000-entry request should cost at most 2.5 × raw inserts of its rows. */
export const stockLogsPost: Scenario = {
  name: NAME,
  description:
    `POST ${STOCK_LOGS_PATH.replace(STOCK_STORE, '{s}')} with ${ENTRIES} entries per request (app.inject; ${PRODUCTS} products, 4 locations, ` +
    'pools by location default or pool_location, loss/gain/plain reason codes, timestamps in order, none late; the database grows run by run) ' +
    `against raw better-sqlite3 prepared statements writing the same ${ENTRIES} stock_logs and stock_ledger rows and upserting the touched balances ` +
    `in one transaction, on a copy of the same database; ${POSTS_PER_RUN} requests per side per run`,
  unit: 'ms',
  valueLabel: 'app',
  baselineLabel: 'raw better-sqlite3',
  target: { ratio: 2.5, comparison: '<=', description: `app time per ${ENTRIES}-entry request ≤ 2.5 × raw inserts of the same log and ledger rows plus balance upserts` },

  prepare: () =>
    new Resources().preparing(async (resources) => {
      const temp = resources.add(tempDir('stock-logs'), (t) => t.remove());
      const bench = await startStockApp(resources, PRODUCTS, temp.dir, 'app');
      const raw = resources.add(rawBooker(await copyStockFixture(PRODUCTS, temp.dir, 'raw')), (r) => r.close());
      const p = picker(5);
      const clock = new StockClock();
      // Both sides get the same batches in the same order, so their databases grow alike.
      const nextBatch = () => {
        const entries = stockEntries(p, clock, ENTRIES, PRODUCTS);
        return { entries, body: stockBody(entries) };
      };
      for (let i = 0; i < WARMUP_POSTS; i++) {
        const batch = nextBatch();
        await timedStockPost(bench, batch.body, ENTRIES);
        raw.post(batch.entries);
      }
      return {
        async measure(run) {
          let app = 0;
          let baseline = 0;
          for (let i = 0; i < POSTS_PER_RUN; i++) {
            const batch = nextBatch();
            // Alternate who goes first, so a drift in machine speed favours neither side.
            if ((run + i) % 2 === 1) baseline += raw.post(batch.entries);
            app += await profileOnce(NAME, () => timedStockPost(bench, batch.body, ENTRIES));
            if ((run + i) % 2 === 0) baseline += raw.post(batch.entries);
          }
          const value = app / POSTS_PER_RUN;
          return { value, baseline: baseline / POSTS_PER_RUN, extra: { 'app entries/s': (ENTRIES * 1000) / value } };
        },
        close: () => resources.release(),
      };
    }),
};
