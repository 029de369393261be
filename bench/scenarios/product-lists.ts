/**
 * Product lists (issue 14, interface §4.1 and §2.1, PRODUCT §8): creating a list of 5,000
 * lines, and reading it back with its lines. Both run on the stock store (lib/stock.ts): its
 * products, locations and categories seeded over HTTP, and every product stocked over HTTP
 * at one or two of the store's locations (or unlocated), so each line read carries what the
 * master and the store add to it — barcode, name, colli, decimals, category and its parent,
 * and the walking order of the product's first location.
 */
import fs from 'node:fs';
import path from 'node:path';
import {
  columnsOfRecords,
  productBarcodesTable,
  productListLinesTable,
  productListsTable,
  productsTable,
} from '../baselines/plain-tables.js';
import { writeProductListCopy, type AnsweredLine } from '../baselines/product-list-copy.js';
import { startProductListFloor } from '../lib/baseline-servers.js';
import { call, expectStatus, getOk, postOk } from '../lib/client.js';
import { picker, type Picker } from '../lib/data.js';
import { storeOpsVerify } from '../lib/ledger-db.js';
import { tempDir } from '../lib/processes.js';
import { startRawWriter } from '../lib/raw-writer-client.js';
import { Resources } from '../lib/resources.js';
import type { Scenario } from '../lib/scenario.js';
import { API, serviceSynchronous, type Service } from '../lib/service.js';
import { median, timed } from '../lib/stats.js';
import {
  STOCK_LOCATIONS,
  STOCK_STORE,
  StockClock,
  productNumber,
  startStockService,
  stockBody,
  stockProductInput,
  timedStockPost,
  type StockEntry,
} from '../lib/stock.js';
import { measureRound, warmUp, type ThroughputPair } from '../lib/throughput.js';

const CREATE = 'productlists.create5000';
const GET = 'productlists.get.lines5000';
const LISTS_PATH = `${API}/stores/${STOCK_STORE}/productlists`;
/** Products of the master (≥ the lines: a list holds some of them, each once). */
const PRODUCTS = 6_000;
const LINES = 5_000;
const APP_USER = 'anna';
/** Create requests per side in one run, in turn; the run's figure of each side is their median. */
const CREATES_PER_RUN = 8;
const WARMUP_CREATES = 2;

// ---------------------------------------------------------------- test data

/** The stock store's products' categories (lib/stock.ts) under two roots, so every line has a parent category. */
const CATEGORY_TREE: Array<[code: string, parent: string]> = [
  ['FOOD', '0'],
  ['HOUSEHOLD', '0'],
  ['FRESH', 'FOOD'],
  ['FROZEN', 'FOOD'],
  ['DAIRY', 'FOOD'],
  ['BAKERY', 'FOOD'],
  ['DRY', 'FOOD'],
  ['NONFOOD', 'HOUSEHOLD'],
];

/** A line as POST …/productlists takes it (interface §4.1). */
export type NewListLine = { product_number: string; quantity: number; barcode?: string };

/**
 * A re-order list as a handheld sends it: `lines` distinct products of the first `products`
 * in a shuffled order, 1–24 pieces or, a tenth, a weighed quantity, one in twenty 0 (stored
 * as 1); a third carry the scanned barcode (ignored: the master's is shown).
 */
export function productListBody(
  p: Picker,
  sequence: number,
  lines: number,
  products: number,
): { body: string; lines: NewListLine[] } {
  const order = Array.from({ length: products }, (_, index) => index);
  for (let i = order.length - 1; i > 0; i--) {
    const j = p.int(0, i);
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  const sent = order.slice(0, lines).map((index): NewListLine => {
    const quantity = p.chance(0.05) ? 0 : p.chance(0.1) ? p.int(250, 2_500) / 1000 : p.int(1, 24);
    return {
      product_number: productNumber(index),
      quantity,
      ...(p.chance(0.3) ? { barcode: stockProductInput(index).barcode as string } : {}),
    };
  });
  const body = {
    product_list_name: `Re-order aisle ${sequence}`,
    product_list_type: 1,
    free_fields: [
      { key: 'aisle', value: String(1 + (sequence % 12)) },
      { key: 'requested_by', value: APP_USER },
    ],
    lines: sent,
  };
  return { body: JSON.stringify(body), lines: sent };
}

/**
 * The store's master data and stock over HTTP: the stock store with `PRODUCTS` products
 * (lib/stock.ts), the categories of their codes under two parents, and every product stocked
 * once at one of the four locations or (a fifth) unlocated, a quarter a second time at
 * another location — so `store_walking_order` is the lowest of one or two location orders,
 * or 0 for a product with no location.
 */
async function startListService(resources: Resources, dir: string): Promise<Service> {
  const service = await startStockService(resources, dir, PRODUCTS);
  const categories = CATEGORY_TREE.map(([code, parent]) => ({
    category_code: code,
    category_name: code.charAt(0) + code.slice(1).toLowerCase(),
    is_adjust_min_max: false,
    is_markdown: false,
    parent_category_code: parent,
  }));
  await postOk(service.baseUrl, `${API}/categories`, { categories }, 'seeding categories');
  const p = picker(14);
  const clock = new StockClock();
  const entries: StockEntry[] = [];
  for (let index = 0; index < PRODUCTS; index++) {
    const entry = (): StockEntry => ({
      product_number: productNumber(index),
      quantity: p.int(1, 48),
      customer_order_line_number: 0,
      modification_datetime: clock.next(p),
    });
    const first = entry();
    if (!p.chance(0.2)) first.location_code = p.pick(STOCK_LOCATIONS).location_code;
    entries.push(first);
    if (p.chance(0.25)) entries.push({ ...entry(), location_code: p.pick(STOCK_LOCATIONS).location_code });
  }
  for (let from = 0; from < entries.length; from += 10_000) {
    const part = entries.slice(from, from + 10_000);
    await timedStockPost(service.baseUrl, stockBody(part), part.length);
  }
  return service;
}

interface ListsPage {
  total_count?: number;
  list: Array<{ id: number; line_count: number; lines?: AnsweredLine[] }>;
}

/** POST …/productlists with a prepared body, timed from sending to the full answer; the new list's id. */
async function timedCreate(service: Service, body: string): Promise<{ ms: number; id: number }> {
  const { ms, result } = await timed(() =>
    call(service.baseUrl, 'POST', `${LISTS_PATH}?app_username=${APP_USER}`, body),
  );
  expectStatus(result, 200, `POST ${LISTS_PATH}`);
  const id = result.json<{ product_list_id: number }>().product_list_id;
  if (!Number.isInteger(id)) throw new Error(`POST ${LISTS_PATH} answered ${result.text().slice(0, 200)}`);
  return { ms, id };
}

/** The list as the service reads it (one list, by id). */
async function readList(
  service: Service,
  id: number,
  showLines: boolean,
): Promise<{ answer: ListsPage; bytes: number }> {
  const answer = await getOk(
    service.baseUrl,
    `${LISTS_PATH}?product_list_id=${id}${showLines ? '&show_lines=true' : ''}`,
    `reading product list ${id}`,
  );
  const page = answer.json<ListsPage>();
  if (page.list.length !== 1 || page.list[0]!.id !== id)
    throw new Error(`GET ${LISTS_PATH}?product_list_id=${id} found ${page.list.length} lists`);
  return { answer: page, bytes: answer.bytes.length };
}

/** Throws unless the service holds list `id` with `expected` lines. */
async function checkLineCount(service: Service, id: number, expected: number): Promise<void> {
  const count = (await readList(service, id, false)).answer.list[0]!.line_count;
  if (count !== expected) throw new Error(`product list ${id} holds ${count} lines, ${expected} were sent`);
}

/**
 * The lines read back are the lines sent, in the order sent (quantity 0 read as 1), each
 * enriched from the master: its barcode, a category with its parent, and a walking order.
 */
function checkReadLines(read: readonly AnsweredLine[], sent: readonly NewListLine[]): void {
  if (read.length !== sent.length) throw new Error(`the list reads ${read.length} lines, ${sent.length} were sent`);
  read.forEach((line, index) => {
    const expected = sent[index]!;
    const product = stockProductInput(Number(expected.product_number.slice(1)) - 1);
    if (
      line.product_number !== expected.product_number ||
      line.quantity !== (expected.quantity === 0 ? 1 : expected.quantity) ||
      line.barcode !== product.barcode ||
      line.category_code !== product.category_code ||
      typeof line.parent_category_code !== 'string' ||
      typeof line.store_walking_order !== 'number'
    ) {
      throw new Error(`line ${index + 1} reads ${JSON.stringify(line)}, sent ${JSON.stringify(expected)}`);
    }
  });
  if (!read.some((line) => (line.store_walking_order as number) > 0))
    throw new Error('no line reads a store walking order: the stock at locations is missing');
}

// ---------------------------------------------------------------- productlists.create5000

/** Issue 14: creating a 5,000-line list should cost at most three raw inserts of its rows. */
export const productListsCreate: Scenario = {
  name: CREATE,
  description:
    `POST ${LISTS_PATH.replace(STOCK_STORE, '{s}')} with one new list of ${LINES} lines of distinct existing products (of ${PRODUCTS}, seeded over ` +
    'HTTP; quantities 0 to 24, some weighed; a third with a barcode) over HTTP, each request a new list (the database grows run by run), against ' +
    'the raw writer process doing the same logical work on the same body text: JSON.parse, then in one immediate transaction one header row in a ' +
    `plain product_lists table and, per line, the product's id looked up by product_number (a prepared select on a plain products table holding ` +
    `the same ${PRODUCTS} products, unique product_number — the service must resolve the numbers too) and one row in a plain product_list_lines ` +
    `table (list id, position, product id, thousandths, pool; integer primary key only, no secondary index); same synchronous mode; ` +
    `${CREATES_PER_RUN} requests per side per run in turn, median of each`,
  unit: 'ms',
  valueLabel: 'service',
  baselineLabel: 'raw better-sqlite3, plain tables',
  baselineKind: 'raw-driver',
  defaultRuns: 5,
  target: {
    ratio: 3,
    comparison: '<=',
    description: `service time to create a ${LINES}-line list ≤ 3 × raw look-ups and inserts of the same header and ${LINES} line rows`,
  },

  prepare: () =>
    new Resources().preparing(async (resources) => {
      const temp = resources.add(tempDir('product-lists-create'), (t) => t.remove());
      const service = await startListService(resources, temp.dir);
      // The raw side's master: the same product records in a plain products table (untimed).
      const products = Array.from({ length: PRODUCTS }, (_, index) => stockProductInput(index));
      const productsFile = path.join(temp.dir, 'raw-products.json');
      fs.writeFileSync(productsFile, JSON.stringify({ products }));
      const raw = resources.add(startRawWriter(), (r) => r.stop());
      await raw.open({
        op: 'open',
        file: path.join(temp.dir, 'raw.sqlite'),
        synchronous: serviceSynchronous(),
        tables: [
          productsTable(columnsOfRecords(products, ['product_number'])),
          productBarcodesTable,
          productListsTable,
          productListLinesTable,
        ],
      });
      await raw.send({ op: 'import', entity: 'products', bodyFile: productsFile });

      const p = picker(41);
      let sequence = 0;
      // Both sides get the same bodies in the same order, so their databases grow alike.
      const nextBody = () => productListBody(p, ++sequence, LINES, PRODUCTS).body;
      const rawCreate = async (body: string) => {
        const answer = await raw.send({
          op: 'product-list-create',
          storeNumber: STOCK_STORE,
          appUsername: APP_USER,
          body,
        });
        if (answer.rows !== 1 + LINES || answer.skipped !== 0)
          throw new Error(
            `the raw writer stored ${answer.rows} rows and skipped ${answer.skipped}, expected ${1 + LINES} and 0`,
          );
        return answer.ms!;
      };
      const serviceCreate = async (body: string) => {
        const { ms, id } = await timedCreate(service, body);
        await checkLineCount(service, id, LINES);
        return ms;
      };

      // Untimed full-size requests, so neither side's first measured one pays for its JIT warm-up;
      // the first list is read back with its lines and checked line for line.
      const first = productListBody(p, ++sequence, LINES, PRODUCTS);
      const { id: firstId } = await timedCreate(service, first.body);
      checkReadLines((await readList(service, firstId, true)).answer.list[0]!.lines ?? [], first.lines);
      await rawCreate(first.body);
      for (let i = 1; i < WARMUP_CREATES; i++) {
        const body = nextBody();
        await serviceCreate(body);
        await rawCreate(body);
      }

      return {
        async measure(run) {
          const serviceMs: number[] = [];
          const rawMs: number[] = [];
          let bodyBytes = 0;
          for (let i = 0; i < CREATES_PER_RUN; i++) {
            const body = nextBody();
            bodyBytes = Buffer.byteLength(body);
            // Alternate who goes first, so a drift in machine speed favours neither side.
            if ((run + i) % 2 === 1) rawMs.push(await rawCreate(body));
            serviceMs.push(await serviceCreate(body));
            if ((run + i) % 2 === 0) rawMs.push(await rawCreate(body));
          }
          const verifyMs = await storeOpsVerify(`sqlite:${service.file}`);
          const value = median(serviceMs);
          const baseline = median(rawMs);
          return {
            value,
            baseline,
            extra: {
              'service lines/s': (LINES * 1000) / value,
              'raw lines/s': (LINES * 1000) / baseline,
              'body KiB': bodyBytes / 1024,
              'service peak RSS MB': service.peakRssMb(),
              'verify ms': verifyMs,
            },
          };
        },
        close: () => resources.release(),
      };
    }),
};

// ---------------------------------------------------------------- productlists.get.lines5000

/** Issue 14: reading a 5,000-line list with its lines should reach half of a bare route reading the same rows with one query. */
export const productListsGetLines: Scenario = {
  name: GET,
  description:
    `GET ${LISTS_PATH.replace(STOCK_STORE, '{s}')}?show_lines=true&product_list_id=… of one list of ${LINES} lines (created over HTTP as in ` +
    `${CREATE}; its products seeded with categories and stock at the store's locations over HTTP, so each line is enriched with barcode, name, ` +
    'colli, decimals, category and parent, walking order) by autocannon — the route has no answer cache, so one URL is what a client re-reading ' +
    'the list gets — against a bare Fastify route (own process) reading the same lines with one hand-written SQL query from a plain table ' +
    `holding them exactly as the service answered them (a SQLite file of its own written once before measuring, unique (list_id, line_no), ` +
    'read by list id in line order) and serialising them with JSON.stringify; checked to read the same lines, byte for byte',
  unit: 'req/s',
  valueLabel: 'service',
  baselineLabel: 'bare fastify + one SQL query on a plain table',
  baselineKind: 'sql-floor',
  defaultRuns: 3,
  target: {
    ratio: 0.5,
    comparison: '>=',
    description: `service throughput reading a ${LINES}-line list with its lines ≥ 0.5 × a bare route reading the same rows from a plain table with one query`,
  },

  prepare: () =>
    new Resources().preparing(async (resources) => {
      const temp = resources.add(tempDir('product-lists-get'), (t) => t.remove());
      const service = await startListService(resources, temp.dir);
      const sent = productListBody(picker(41), 1, LINES, PRODUCTS);
      const { id } = await timedCreate(service, sent.body);
      const { answer, bytes: serviceBytes } = await readList(service, id, true);
      const lines = answer.list[0]!.lines ?? [];
      checkReadLines(lines, sent.lines);

      // The floor's plain table: the lines as answered, written once; then the floor must read exactly them.
      const copyFile = path.join(temp.dir, 'product-list-floor.sqlite');
      if (writeProductListCopy(copyFile, id, lines) !== LINES)
        throw new Error(`the floor's plain table does not hold ${LINES} lines`);
      const query = `?show_lines=true&product_list_id=${id}`;
      const floor = resources.add(await startProductListFloor(LISTS_PATH, copyFile, query), (f) => f.stop());
      const floorAnswer = await getOk(floor.origin, `${LISTS_PATH}${query}`, 'the floor route');
      const floorLines = floorAnswer.json<ListsPage>().list[0]?.lines ?? [];
      if (
        floorLines.length !== lines.length ||
        floorLines[0]?.product_number !== lines[0]?.product_number ||
        floorLines.at(-1)?.product_number !== lines.at(-1)?.product_number ||
        JSON.stringify(floorLines) !== JSON.stringify(lines)
      ) {
        throw new Error(
          `the SQL floor route does not read the same rows as the service (${floorLines.length} lines, first ${floorLines[0]?.product_number})`,
        );
      }

      const pair: ThroughputPair = {
        service: {
          origin: service.baseUrl,
          paths: [`${LISTS_PATH}${query}`],
          rssMb: service.rssMb,
          peakRssMb: service.peakRssMb,
        },
        baseline: { origin: floor.origin, paths: [`${LISTS_PATH}${query}`] },
      };
      await warmUp(pair);
      return {
        async measure(run) {
          const sample = await measureRound(pair, run);
          return {
            ...sample,
            extra: {
              ...sample.extra,
              'service body KiB': serviceBytes / 1024,
              'floor body KiB': floorAnswer.bytes.length / 1024,
              'service lines/s': sample.value * LINES,
              'service peak RSS MB': service.peakRssMb(),
            },
          };
        },
        close: () => resources.release(),
      };
    }),
};
