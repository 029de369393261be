import SqliteDatabase from 'better-sqlite3';
import { API, expectStatus, startBenchApp, tempDir } from './lib/app.js';
import { storeInputs } from './lib/data.js';
const temp = tempDir('probe');
const bench = await startBenchApp(temp.dir, 'app');
expectStatus(await bench.inject('POST', `${API}/stores`, JSON.stringify({ stores: storeInputs(1000) })), 200, 'seed');
const db = new SqliteDatabase(bench.file);
const N = 300;
function t(label: string, f: () => unknown) {
  for (let i = 0; i < 20; i++) f();
  const s = performance.now();
  for (let i = 0; i < N; i++) f();
  console.log(label.padEnd(50), ((performance.now() - s) / N).toFixed(3), 'ms');
}
const q = db.prepare('select * from stores where deleted_on is null order by id limit 101');
t('raw prepared select * where deleted_on is null', () => q.all());
t('raw prepare+all each time', () => db.prepare('select * from stores where deleted_on is null order by id limit 101').all());
const q2 = db.prepare('select * from stores order by id limit 101');
t('raw select * no where', () => q2.all());
const q3 = db.prepare('select id from stores where deleted_on is null order by id limit 101');
t('raw select id where deleted_on is null', () => q3.all());
const q4 = db.prepare('select count(*) from stores where deleted_on is null');
t('raw count where deleted_on is null', () => q4.all());
const q5 = db.prepare('select * from stores where deleted_on is null order by id limit 101').raw();
t('raw select * .raw() arrays', () => q5.all());
console.log(db.prepare('explain query plan select * from stores where deleted_on is null order by id limit 101').all());
console.log(db.pragma('page_size'), db.prepare('select sum(length(free_fields)+length(opening_hours)+length(ordering_schema)+length(store_printers)) / count(*) as json_bytes from stores').get());
await bench.close(); temp.remove(); process.exit(0);
