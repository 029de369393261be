import { startBenchApp, tempDir, API } from './lib/app.js';
const t = tempDir('probe');
const b = await startBenchApp(t.dir, 'app');
const T = async (label: string, f: () => Promise<any>) => { const s = performance.now(); const r = await f(); console.log(label, (performance.now() - s).toFixed(0), 'ms', r.statusCode, r.body.slice(0, 150)); return r; };
await T('store', () => b.inject('POST', `${API}/stores`, JSON.stringify({ stores: [{ store_number: 'S1', store_name: 'S1', is_active: true, is_active_data_exchange: true, is_warehouse: false, store_stock_pool_1: 'Sales floor', store_stock_pool_2: 'Back' }] })));
const products = (from: number, n: number) => Array.from({ length: n }, (_, i) => ({ product_number: `P${String(from + i).padStart(6, '0')}`, product_name: `Product ${from + i}`, carrier_item_quantity: 1, is_counted: true, price_compare_multiplier: 1, barcode: `87${String(from + i).padStart(11, '0')}`, price: 1.99, purchase_price: 0.99, category_code: 'DRY', is_stock: true }));
for (let k = 0; k < 5; k++) await T('products 10k', () => b.inject('POST', `${API}/products`, JSON.stringify({ products: products(k * 10000, 10000) })));
await T('locations', () => b.inject('POST', `${API}/stores/S1/locations`, JSON.stringify({ locations: [1, 2, 3, 4].map((i) => ({ location_code: `L${i}`, default_stock_pool: i % 2 + 1, tags: ['shelf'] })) })));
let clock = Date.UTC(2026, 9, 1);
const entries = (from: number, n: number) => Array.from({ length: n }, (_, i) => ({ product_number: `P${String(from + i).padStart(6, '0')}`, quantity: 5, customer_order_line_number: 0, modification_datetime: new Date(clock += 100).toISOString(), location_code: i % 3 === 0 ? undefined : `L${i % 4 + 1}` }));
for (let k = 0; k < 5; k++) await T('entries 10k', () => b.inject('POST', `${API}/stores/S1/products/stock/storeproductlogs`, JSON.stringify({ storeproductlog: entries(k * 10000, 10000) })));
for (let k = 0; k < 5; k++) await T('entries 1k', () => b.inject('POST', `${API}/stores/S1/products/stock/storeproductlogs`, JSON.stringify({ storeproductlog: entries(k * 1000, 1000) })));
let r = await T('page1', () => b.inject('GET', `${API}/storeproducts/stock?store_number=S1&page_size=100&include_locations=true`));
const s = performance.now();
let cursor = JSON.parse(r.body).scroll_id;
for (let p = 2; p < 500; p++) { r = await b.inject('GET', `${API}/storeproducts/stock?store_number=S1&page_size=100&include_locations=true&scroll_id=${cursor}`); cursor = JSON.parse(r.body).scroll_id; }
console.log('walk', (performance.now() - s).toFixed(0), r.statusCode);
for (let k = 0; k < 5; k++) { await T('p500', () => b.inject('GET', `${API}/storeproducts/stock?store_number=S1&page_size=100&include_locations=true&scroll_id=${cursor}`)); await T('p1', () => b.inject('GET', `${API}/storeproducts/stock?store_number=S1&page_size=100&include_locations=true`)); }
await T('single', () => b.inject('GET', `${API}/stores/S1/products/P000001/stock?include_locations=true`));
await b.close(); t.remove();
