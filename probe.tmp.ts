import { productInput } from './bench/scenarios/products.js';
import { startBenchApp, tempDir } from './bench/lib/app.js';
import { createValidatorCompiler } from './src/shared/validation.js';
import { ProductsBody } from './src/modules/products/schema.js';
import { toProductRecord, productHash } from './src/modules/products/mapping.js';
const inputs = Array.from({ length: 10000 }, (_, i) => productInput(i));
const body = JSON.stringify({ products: inputs });
console.log('body MB', (body.length / 1e6).toFixed(1));
const t = (label: string, f: () => unknown) => { const s = performance.now(); const r = f(); console.log(label, (performance.now() - s).toFixed(0), 'ms'); return r; };
for (let k = 0; k < 2; k++) {
  const parsed = t('parse', () => JSON.parse(body)) as any;
  const validate = createValidatorCompiler()({ schema: ProductsBody, httpPart: 'body' });
  t('validate', () => validate(parsed));
  t('map+hash', () => parsed.products.map((p: any) => { const r = toProductRecord(p); return productHash(r); }));
}
const temp = tempDir('probe');
const bench = await startBenchApp(temp.dir, 'x');
for (let k = 0; k < 3; k++) {
  const s = performance.now();
  const r = await bench.inject('POST', '/api/v2/public/products', body);
  console.log('inject', r.json().message, (performance.now() - s).toFixed(0));
}
await bench.close(); temp.remove();
