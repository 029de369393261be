import { productInput } from './bench/scenarios/products.js';
import { startBenchApp, tempDir } from './bench/lib/app.js';
import { pricesValidAt } from './src/modules/products/prices/repository.js';
import { discountsNotEndedAt } from './src/modules/products/discounts/repository.js';
import { countProducts, pageOfProducts } from './src/modules/products/repository.js';
const temp = tempDir('probe');
const bench = await startBenchApp(temp.dir, 'x');
await bench.inject('POST', '/api/v2/public/products', JSON.stringify({ products: Array.from({ length: 10000 }, (_, i) => productInput(i)) }));
const db = bench.app.ctx.db;
const nums = Array.from({ length: 20 }, (_, i) => `P${String(i * 487 + 1).padStart(7, '0')}`);
const ids = (await db.selectFrom('products').select('id').where('product_number', 'in', nums).execute()).map((r) => r.id);
const time = async (label: string, f: () => Promise<unknown>) => { for (let k = 0; k < 50; k++) await f(); const s = performance.now(); for (let k = 0; k < 300; k++) await f(); console.log(label, ((performance.now() - s) / 300).toFixed(3), 'ms'); };
for (let r = 0; r < 0; r++) {
await time('page', () => pageOfProducts(db, { productNumbers: nums }, { offset: 0, limit: 100 }));
await time('count', () => countProducts(db, { productNumbers: nums }));
await time('prices', () => pricesValidAt(db, ids, Date.now()));
await time('discounts', () => discountsNotEndedAt(db, ids, Date.now()));
await time('select 1', () => db.selectFrom('meta').select('key').limit(1).execute());
await time('inject', () => bench.inject('GET', '/api/v2/public/products?' + nums.map((n) => `product_number=${n}`).join('&')));
await time('inject stores', () => bench.inject('GET', '/api/v2/public/stores?page_size=20'));
}

const Database = (await import('better-sqlite3')).default;
const raw = new Database(bench.file);
const q = db.selectFrom('products').selectAll().where('deleted_on', 'is', null).where('product_number', 'in', nums).orderBy('id').limit(100).compile();
const stmt = raw.prepare(q.sql);
await time('raw page prepared', async () => stmt.all(...(q.parameters as any[])));
await time('raw page prepare+all', async () => raw.prepare(q.sql).all(...(q.parameters as any[])));
const q2 = db.selectFrom('products').selectAll().where('product_number', 'in', nums).compile();
await time('raw no order no deleted', async () => raw.prepare(q2.sql).all(...(q2.parameters as any[])));
const q3 = db.selectFrom('products').select(['id','product_number']).where('product_number', 'in', nums).compile();
await time('raw 2 cols', async () => raw.prepare(q3.sql).all(...(q3.parameters as any[])));

console.log(raw.pragma('page_size'), raw.pragma('cache_size'), raw.pragma('wal_checkpoint(TRUNCATE)'));
await time('raw after checkpoint', async () => raw.prepare(q2.sql).all(...(q2.parameters as any[])));
console.log(raw.prepare("select avg(length(product_name)+length(free_fields)+length(units)+length(barcodes_array)) as a from products").get());
await time('raw id=1 *', async () => raw.prepare('select * from products where id = 5000').all());
await time('raw id=1 name', async () => raw.prepare('select product_name from products where id = 5000').all());
await time('raw id=1 units', async () => raw.prepare('select units from products where id = 5000').all());

const one = raw.prepare('select * from products where id = 5000');
await time('prepared * one', async () => one.all());
const oneRaw = raw.prepare('select * from products where id = 5000').raw(true);
await time('prepared * one raw arrays', async () => oneRaw.all());
const cols = (raw.pragma('table_info(products)') as any[]).map((c) => c.name);
const half = raw.prepare(`select ${cols.slice(0, 50).join(',')} from products where id = 5000`);
await time('prepared first 50 cols', async () => half.all());
const half2 = raw.prepare(`select ${cols.slice(50).join(',')} from products where id = 5000`);
await time('prepared last cols', async () => half2.all());
for (const c of cols) { const st = raw.prepare(`select ${c} from products where id = 5000`); const s0 = performance.now(); for (let k = 0; k < 200; k++) st.all(); const ms = (performance.now() - s0) / 200; if (ms > 0.01) console.log(c, ms.toFixed(3)); }
await bench.close(); temp.remove();
