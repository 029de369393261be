import Fastify from 'fastify';
import { productInput } from './bench/scenarios/products.js';
import { startBenchApp, tempDir } from './bench/lib/app.js';
const temp = tempDir('probe');
const bench = await startBenchApp(temp.dir, 'x');
const inputs = Array.from({ length: 10000 }, (_, i) => productInput(i));
await bench.inject('POST', '/api/v2/public/products', JSON.stringify({ products: inputs }));
const nums = Array.from({ length: 20 }, (_, i) => inputs[i * 487]!.product_number as string);
await bench.inject('POST', '/api/v2/public/products/prices', JSON.stringify({ prices: nums.flatMap((n, i) => [{ price_id: `CH-${n}`, product_number: n, price: 9.99, price_type: 1, valid_from: '2020-01-01T00:00:00Z', valid_to: '2100-01-01T00:00:00Z' }, { price_id: `NL-${n}`, product_number: n, price: (899 + i) / 100, price_type: 1, country_code: 'NL', valid_from: '2024-01-01T00:00:00Z', valid_to: '2100-01-01T00:00:00Z' }]) }));
await bench.inject('POST', '/api/v2/public/products/discountprices', JSON.stringify({ discounts: nums.map((n) => ({ is_delete: false, discount_id: `D-${n}`, product_number: n, price: 7.49 })) }));
const url = '/api/v2/public/products?' + nums.map((n) => `product_number=${n}`).join('&');
const bytes = (await bench.inject('GET', url)).rawPayload;
const bare = Fastify(); bare.get('/api/v2/public/products', (_q, r) => { r.header('content-type', 'application/json; charset=utf-8').send(bytes); }); await bare.ready();
const ratios: number[] = [];
for (let round = 0; round < 7; round++) {
  let s = performance.now(); for (let k = 0; k < 300; k++) await bench.inject('GET', url); const app = (performance.now() - s) / 300;
  s = performance.now(); for (let k = 0; k < 300; k++) await bare.inject({ method: 'GET', url }); const b = (performance.now() - s) / 300;
  ratios.push(b / app);
  console.log(`app ${app.toFixed(3)} ms bare ${b.toFixed(3)} ms  throughput ratio ${(b / app).toFixed(3)}`);
}
console.log('median ratio', ratios.sort()[3]!.toFixed(3), 'bytes', bytes.length);
console.log((globalThis as any).__laps);
await bench.close(); await bare.close(); temp.remove();
