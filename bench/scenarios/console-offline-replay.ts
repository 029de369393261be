import { randomUUID } from 'node:crypto';
import { chromium, type Browser, type Page } from 'playwright-core';
import { findChromium } from '../../test/helpers/chromium.js';
import { picker } from '../lib/data.js';
import { tempDir } from '../lib/processes.js';
import { Resources } from '../lib/resources.js';
import type { Sample, Scenario } from '../lib/scenario.js';
import { AUTHORIZATION, BENCH_ADMIN_TOKEN, type Service } from '../lib/service.js';
import { StockClock, STOCK_STORE, startStockService, stockEntries, stockLogsPath } from '../lib/stock.js';

/**
 * Issue 43: a handheld's offline queue of 1,000 actions replayed when the network is back.
 * The console in Chromium (playwright-core, the system's browser) signed in to the service
 * (`npm start`, its own process), 1,000 one-entry stock posts written to its outbox while the
 * browser is offline, then the network back: the time until the outbox holds none waiting,
 * each sent in order with its own Idempotency-Key. Judged against the absolute target
 * (1,000 actions in a minute: 16.7 actions/s); beside it, the server's own throughput for the
 * same 1,000 keyed posts sent one at a time by a Node client (the most any client sending one
 * at a time can reach: the replay's floor).
 */
const NAME = 'console.offline-replay';
const ACTIONS = 1_000;
const PRODUCTS = 200;
const TARGET_PER_SECOND = ACTIONS / 60;

interface Prepared {
  browser: Browser;
  service: Service;
  clock: StockClock;
}

const actionsOf = (prepared: Prepared, seed: number) => {
  const entries = stockEntries(picker(seed), prepared.clock, ACTIONS, PRODUCTS);
  return entries.map((entry) => ({
    store: STOCK_STORE,
    kind: 'loss',
    label: `entry ${entry.product_number}`,
    method: 'POST',
    route: stockLogsPath(STOCK_STORE).replace('/api/v2/public', ''),
    body: { storeproductlog: [entry] },
    scannedAt: entry.modification_datetime,
    key: randomUUID(),
    queuedAt: new Date().toISOString(),
    state: 'waiting',
    attempts: 0,
  }));
};

async function openConsole(prepared: Prepared): Promise<Page> {
  const context = await prepared.browser.newContext();
  const page = await context.newPage();
  await page.goto(`${prepared.service.baseUrl}/console`);
  await page.locator('#token').fill(BENCH_ADMIN_TOKEN);
  await page.keyboard.press('Enter');
  await page.locator('#store-select').waitFor();
  return page;
}

/** Seconds from the network's return to an outbox with nothing waiting. */
async function replay(prepared: Prepared, run: number): Promise<number> {
  const page = await openConsole(prepared);
  try {
    await page.context().setOffline(true);
    const actions = actionsOf(prepared, 1000 + run);
    // Written as Outbox.add writes them, in one transaction: the queue a day offline leaves.
    await page.evaluate(
      `import('/console/js/offline/device-db.js').then((db) => db.inStore('outbox', 'readwrite', (store) => { for (const a of ${JSON.stringify(actions)}) store.add(a); })).then(() => new BroadcastChannel('store-console-outbox').postMessage('changed'))`,
    );
    // The page has seen the queue (its status line counts it) before the network returns.
    await page.locator(`#status[data-waiting="${ACTIONS}"]`).waitFor({ state: 'attached' });
    const started = performance.now();
    await page.context().setOffline(false);
    await page.evaluate(() => window.dispatchEvent(new Event('online')));
    await page.locator('#status[data-waiting="0"]').waitFor({ state: 'attached', timeout: 600_000 });
    const seconds = (performance.now() - started) / 1000;
    const refused = await page.locator('#status').getAttribute('data-refused');
    if (refused !== '0') throw new Error(`the replay had ${refused} refused actions`);
    return seconds;
  } finally {
    await page.context().close();
  }
}

/** The same 1,000 keyed one-entry posts from Node, one at a time: actions/s. */
async function nodeOneAtATime(prepared: Prepared, run: number): Promise<number> {
  const actions = actionsOf(prepared, 5000 + run);
  const started = performance.now();
  for (const action of actions) {
    const response = await fetch(`${prepared.service.baseUrl}/api/v2/public${action.route}`, {
      method: 'POST',
      headers: { authorization: AUTHORIZATION, 'content-type': 'application/json', 'idempotency-key': action.key },
      body: JSON.stringify(action.body),
    });
    if (response.status !== 200) throw new Error(`node client: HTTP ${response.status} ${await response.text()}`);
    await response.arrayBuffer();
  }
  return ACTIONS / ((performance.now() - started) / 1000);
}

export const consoleOfflineReplay: Scenario = {
  name: NAME,
  description: `The console's outbox (Chromium, offline then online) replaying ${ACTIONS} one-entry stock posts, each with its Idempotency-Key, to one service process: actions/s, judged against the issue's absolute target of ${ACTIONS} in a minute; beside it, a Node client sending the same keyed posts one at a time`,
  unit: 'actions/s',
  valueLabel: 'console replay',
  baselineLabel: `${ACTIONS} in 60 s (the issue's target)`,
  baselineKind: 'absolute',
  defaultRuns: 3,
  target: { ratio: 1, comparison: '>=', description: `${ACTIONS} queued actions replay in under a minute (issue 43)` },

  prepare: () =>
    new Resources().preparing(async (resources) => {
      const executablePath = findChromium();
      if (!executablePath) throw new Error('console.offline-replay needs Chromium (the Debian package `chromium`)');
      const temp = resources.add(tempDir('console-replay'), (t) => t.remove());
      const service = await startStockService(resources, temp.dir, PRODUCTS);
      const browser = resources.add(
        await chromium.launch({ executablePath, headless: true, args: ['--no-sandbox'] }),
        (b) => b.close(),
      );
      const prepared: Prepared = { browser, service, clock: new StockClock() };
      return {
        async measure(run: number): Promise<Sample> {
          const seconds = await replay(prepared, run);
          const node = await nodeOneAtATime(prepared, run);
          return {
            value: ACTIONS / seconds,
            baseline: TARGET_PER_SECOND,
            extra: { 'replay seconds': seconds, 'node client one at a time, actions/s': node },
          };
        },
        close: () => resources.release(),
      };
    }),
};
