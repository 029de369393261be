import { productInput } from './bench/scenarios/products.js';
import { startBenchApp, tempDir } from './bench/lib/app.js';
import { sql } from 'kysely';
const temp = tempDir('probe');
const bench = await startBenchApp(temp.dir, 'x');
await bench.inject('POST', '/api/v2/public/products', JSON.stringify({ products: Array.from({ length: 10000 }, (_, i) => productInput(i)) }));
const db = bench.app.ctx.db;
const nums = Array.from({ length: 20 }, (_, i) => `P${String(i * 487 + 1).padStart(7, '0')}`);
const q = db.selectFrom('products').selectAll().where('deleted_on', 'is', null).where('product_number', 'in', nums).orderBy('id').limit(100).compile();
console.log((await db.executeQuery({ ...q, sql: `explain query plan ${q.sql}` } as any)).rows);
const c = (await sql`explain query plan select count(*) from products where deleted_on is null and product_number in (${sql.join(nums)})`.execute(db)).rows;
console.log(c);
const url = '/api/v2/public/products?' + nums.map((n) => `product_number=${n}`).join('&');
for (let k = 0; k < 5; k++) { const s = performance.now(); const r = await bench.inject('GET', url); console.log(r.statusCode, (performance.now() - s).toFixed(1)); }
for (let k = 0; k < 5; k++) {
let s = performance.now(); await db.selectFrom('products').selectAll().where('deleted_on', 'is', null).where('product_number', 'in', nums).orderBy('id').limit(100).execute(); console.log('page', (performance.now() - s).toFixed(1));
s = performance.now(); await db.selectFrom('products').select((eb) => eb.fn.countAll().as('n')).where('deleted_on', 'is', null).where('product_number', 'in', nums).execute(); console.log('count', (performance.now() - s).toFixed(1));
s = performance.now(); await db.selectFrom('product_prices').selectAll().where('product_id', 'in', [1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20]).where('deleted_on', 'is', null).where('valid_from', '<=', Date.now()).where('valid_to', '>', Date.now()).execute(); console.log('prices', (performance.now() - s).toFixed(1));
s = performance.now(); const h = (await import('./src/modules/products/mapping.js')); const rows = await db.selectFrom('products').selectAll().where('product_number', 'in', nums).execute(); const s2 = performance.now(); rows.map((r) => h.toProductItem(r, { priceMoney: r.price })); console.log('map', (performance.now() - s2).toFixed(1));
}
await bench.close(); temp.remove();
