import { productInput } from './bench/scenarios/products.js';
import { startBenchApp, tempDir } from './bench/lib/app.js';
const temp = tempDir('probe');
const bench = await startBenchApp(temp.dir, 'x');
const inputs = Array.from({ length: 10000 }, (_, i) => productInput(i));
await bench.inject('POST', '/api/v2/public/products', JSON.stringify({ products: inputs }));
const nums = Array.from({ length: 20 }, (_, i) => inputs[i * 487]!.product_number as string);
const url = '/api/v2/public/products?' + nums.map((n) => `product_number=${n}`).join('&');
for (let k = 0; k < 200; k++) await bench.inject('GET', url);
const { Session } = await import('node:inspector/promises');
const session = new Session(); session.connect();
await session.post('Profiler.enable'); await session.post('Profiler.setSamplingInterval', { interval: 100 }); await session.post('Profiler.start');
const s = performance.now();
for (let k = 0; k < 1000; k++) await bench.inject('GET', url);
console.log('per request ms', ((performance.now() - s) / 1000).toFixed(2));
const { profile } = await session.post('Profiler.stop') as any;
const byId = new Map<number, any>(profile.nodes.map((n: any) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const incl = new Map<string, number>();
const name = (n: any) => `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url.split('/').slice(-2).join('/')}:${n.callFrame.lineNumber}`;
let total = 0;
for (let i = 0; i < profile.samples.length; i++) {
  const dt = profile.timeDeltas[i]; total += dt;
  const seen = new Set<string>();
  for (let id: number | undefined = profile.samples[i]; id !== undefined; id = parent.get(id)) { const k = name(byId.get(id)); if (!seen.has(k)) { seen.add(k); incl.set(k, (incl.get(k) ?? 0) + dt); } }
}
for (const [k, v] of [...incl].sort((a, b) => b[1] - a[1]).slice(0, 70)) console.log((v / total * 100).toFixed(1) + '%', k);
await bench.close(); temp.remove();
