import { productInput } from './bench/scenarios/products.js';
import { startBenchApp, tempDir } from './bench/lib/app.js';
const body = JSON.stringify({ products: Array.from({ length: 10000 }, (_, i) => productInput(i)) });
const temp = tempDir('probe');
const bench = await startBenchApp(temp.dir, 'x');
for (let k = 0; k < 3; k++) {
  const s = performance.now();
  const r = await bench.inject('POST', '/api/v2/public/products', body);
  console.log('inject', r.json().message, (performance.now() - s).toFixed(0));
}
await bench.close(); temp.remove();
