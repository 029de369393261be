import SqliteDatabase from 'better-sqlite3';
import { CompiledQuery, Kysely, SqliteDialect } from 'kysely';
import { tempDir, API } from './lib/app.js';
import { picker } from './lib/data.js';
import { Resources } from './lib/resources.js';
import { startStockApp, stockBody, stockEntries, StockClock, timedStockPost, STOCK_STORE } from './lib/stock.js';
import { stockSubject, balancesOfProduct } from '../src/modules/store-stock/repository.js';
import { findProductsByNumbers } from '../src/modules/products/repository.js';
import type { Database } from '../src/db/schema.js';

const r = new Resources();
const temp = tempDir('exp');
const bench = await startStockApp(r, 2000, temp.dir, 'app');
const clock = new StockClock();
const p = picker(3);
for (let i = 0; i < 3; i++) { const e = stockEntries(p, clock, 1000, 2000); await timedStockPost(bench, stockBody(e), 1000); }

const raw = new SqliteDatabase(bench.file);
const captured: Array<{ sql: string; parameters: readonly unknown[] }> = [];
const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: raw }), log: (e) => { if (e.level === 'query') captured.push({ sql: e.query.sql, parameters: e.query.parameters }); } });

const per = async (label: string, n: number, f: () => unknown) => {
  for (let i = 0; i < Math.min(200, n); i++) await f();
  const s = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await f();
  const us = Number(process.hrtime.bigint() - s) / 1000 / n;
  console.log(`${label.padEnd(60)} ${us.toFixed(1)} µs`);
  return us;
};

// single.get pieces
captured.length = 0;
const subject = (await stockSubject(db, STOCK_STORE, 'P0000001'))!;
const subjectSql = captured[0]!;
captured.length = 0;
await balancesOfProduct(db, subject.store.id, subject.product.id, { excludeOrderBound: false, withLocations: true });
const balancesSql = captured[0]!;
const appDb = bench.app.ctx.db;
await per('stockSubject via Kysely builder (app handle, statement cache)', 3000, () => stockSubject(appDb, STOCK_STORE, 'P0000001'));
await per('  same SQL, app handle executeQuery(CompiledQuery.raw) (no builder)', 3000, () => appDb.executeQuery(CompiledQuery.raw(subjectSql.sql, [...subjectSql.parameters])));
await per('  builder + compile only (no execution)', 3000, () => appDb.selectFrom('stores as s').select(['s.id']).where('s.store_number', '=', 'x').compile());
const st1 = raw.prepare(subjectSql.sql);
await per('  same SQL, raw prepared statement .all()', 3000, () => st1.all(...subjectSql.parameters));
await per('balancesOfProduct via Kysely builder (app handle)', 3000, () => balancesOfProduct(appDb, subject.store.id, subject.product.id, { excludeOrderBound: false, withLocations: true }));
const st2 = raw.prepare(balancesSql.sql);
await per('  same SQL, raw prepared statement .all()', 3000, () => st2.all(...balancesSql.parameters));
await per('whole GET …/products/P0000001/stock?include_locations=true via inject', 2000, () => bench.inject('GET', `${API}/stores/${STOCK_STORE}/products/P0000001/stock?include_locations=true`));
await per('GET /health-ish: unknown route 404 via inject (framework floor)', 2000, () => bench.inject('GET', `/nope`));
console.log(subjectSql.sql);

// post1000 pieces
const numbers = [...new Set(stockEntries(picker(9), new StockClock(), 1000, 2000).map((e) => e.product_number))];
console.log('distinct products in a batch', numbers.length);
await per('findProductsByNumbers (selectAll) for a batch (app handle)', 100, () => findProductsByNumbers(appDb, numbers));
await per('  narrow select of the 6 booking columns (app handle)', 100, () => appDb.selectFrom('products').select(['id', 'product_number', 'barcode', 'price', 'purchase_price', 'purchase_unit_quantity']).where('product_number', 'in', numbers).where('deleted_on', 'is', null).execute());
const rows = Array.from({ length: 1000 }, (_, i) => ({ store_id: 1, store_number: 'S', product_id: 1, product_number: 'P', location_id: null, location_code: null, reason_code: null, reason_code_description: null, modification_at: i, is_count: 0, is_from_receipt: 0, quantity: 1, pool_quantities: '[1]', counted_quantity: null, review_status: 0, is_applied: 1, reference_id: null, customer_order_number: null, customer_order_line_number: null, customer_order_shipment_number: null, customer_order_shipment_line_number: null, app_user_name: 'a', reference: null, source: null, remarks: null, exception_image: null, orderno: null, barcode: null, scanned_at: null, order_after_at: null, price: 1, purchase_price: 1, purchase_unit_quantity: 1, created_on: 1, updated_on: 1, created_by: 'a', modified_by: 'a' }));
await per('Kysely: build+compile 1000-row stock_logs insert (chunked 27 rows*37)', 20, () => { for (let i = 0; i < 1000; i += 27) db.insertInto('stock_logs').values(rows.slice(i, i + 27) as never).returning('id').compile(); });
process.exit(0);
