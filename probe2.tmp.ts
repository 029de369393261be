import { productInput } from './bench/scenarios/products.js';
import { toProductRecord, productHash } from './src/modules/products/mapping.js';
import { barcodeClaims } from './src/modules/products/barcodes.js';
import { toMoney, toQuantity } from './src/domain/decimal.js';
import { contentHash } from './src/shared/bulk.js';
const inputs = JSON.parse(JSON.stringify(Array.from({ length: 10000 }, (_, i) => productInput(i))));
const t = (label: string, f: () => unknown) => { const s = performance.now(); const r = f(); console.log(label, (performance.now() - s).toFixed(0), 'ms'); return r; };
for (let k = 0; k < 3; k++) {
  const recs = t('record', () => inputs.map((p: any) => toProductRecord(p))) as any[];
  t('hash', () => recs.map((r) => productHash(r)));
  t('hash-json', () => recs.map((r) => contentHash(r)));
  t('claims', () => inputs.map((p: any, i: number) => barcodeClaims(p, i)));
  t('money x80k', () => { for (let i = 0; i < 80000; i++) toMoney(12.34 + i / 100); });
}
