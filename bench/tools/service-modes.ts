/**
 * Starts the service N times in a row (`npm start`, as the bench does), seeds each like
 * `stock.single.get`, loads the cached single-product read with autocannon and prints each
 * process's req/s, p99 and resident memory. One bench run cannot tell a process that came up
 * in a slower mode from the machine's noise; N processes side by side can (session 9 found
 * two modes this way: ~27,000 req/s with p99 1 ms, or ~19,000 with p99 5 ms and more GC).
 *
 *   npx tsx bench/tools/service-modes.ts [--processes=5] [--seconds=5]
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { picker } from '../lib/data.js';
import { REPO_ROOT, tempDir } from '../lib/processes.js';
import { API, BENCH_ADMIN_TOKEN, startService } from '../lib/service.js';
import {
  StockClock,
  STOCK_STORE,
  productNumber,
  seedStockMasterData,
  stockBody,
  stockEntries,
  timedStockPost,
} from '../lib/stock.js';

const { values } = parseArgs({
  options: { processes: { type: 'string', default: '5' }, seconds: { type: 'string', default: '5' } },
});
const processes = Number(values.processes);
const seconds = Number(values.seconds);
const AUTOCANNON = path.join(REPO_ROOT, 'node_modules', '.bin', 'autocannon');

for (let index = 1; index <= processes; index++) {
  const temp = tempDir('service-modes');
  const service = await startService(temp.dir, 'service');
  try {
    await seedStockMasterData(service.baseUrl, 2_000);
    const history = stockEntries(picker(7), new StockClock(), 1_000, 2_000);
    await timedStockPost(service.baseUrl, stockBody(history), history.length);
    const url = `${service.baseUrl}${API}/stores/${STOCK_STORE}/products/${productNumber(0)}/stock?include_locations=true`;
    const run = spawnSync(
      AUTOCANNON,
      ['-c', '10', '-d', String(seconds), '-j', '-H', `authorization=Bearer ${BENCH_ADMIN_TOKEN}`, url],
      { encoding: 'utf8' },
    );
    const result = JSON.parse(run.stdout) as {
      requests: { average: number };
      latency: { p99: number };
      non2xx: number;
      errors: number;
    };
    if (result.non2xx > 0 || result.errors > 0)
      throw new Error(`process ${index}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
    console.log(
      `process ${index}: ${Math.round(result.requests.average)} req/s, p99 ${result.latency.p99} ms, RSS ${service.rssMb().toFixed(0)} MB (peak ${service.peakRssMb().toFixed(0)} MB)`,
    );
  } finally {
    await service.stop();
    temp.remove();
  }
}
