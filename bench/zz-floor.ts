import { tempDir, startBenchApp } from './lib/app.js';
import { Resources } from './lib/resources.js';
import { compareThroughput } from './lib/http.js';
const r = new Resources();
const temp = r.add(tempDir('floor'), (t) => t.remove());
const bench = r.add(await startBenchApp(temp.dir, 'app'), (b) => b.close());
const res = await bench.inject('GET', '/healthz');
console.log(res.body);
const s = await compareThroughput(r, { name: 'floor', bench, path: '/healthz', query: '', bytes: res.rawPayload });
for (let i = 0; i < 5; i++) { const x = await s.measure(i); console.log(Math.round(x.value), Math.round(x.baseline), (x.value / x.baseline).toFixed(3)); }
await s.close();
process.exit(0);
