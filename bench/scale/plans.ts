/**
 * `npm run bench -- plans --url <postgres url of a generated chain>`: the plans PostgreSQL
 * chooses, at chain scale, for the statements the service sends in its hot flows — the same
 * flows `npm run sql` records (sql/postgres/), run here on a chain written by `store-ops
 * generate` through the one app (buildApp, in this process, so every statement is heard with
 * its parameters: db/statement-log.ts). Each distinct read is then run again under
 * `EXPLAIN (ANALYZE, BUFFERS)` with the parameters it was sent with, and the plans are
 * written to docs/plans-at-scale.md. Writes are listed, not explained (EXPLAIN ANALYZE would
 * run them). The one write flow posts a late entry, as the scale bench does.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Command } from 'commander';
import pg from 'pg';
import { format } from 'sql-formatter';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { listenToStatements } from '../../src/db/statement-log.js';
import { productNumberOf, storeNumberOf } from '../../src/generate/chain-plan.js';
import { REPO_ROOT } from '../lib/processes.js';
import { API } from '../lib/service.js';

const TOKEN = 'plans-admin-token';
const DAY = 86_400_000;

interface Heard {
  sql: string;
  parameters: readonly unknown[];
}

type Flow = {
  name: string;
  what: string;
  run: (
    get: (url: string) => Promise<unknown>,
    post: (url: string, body: unknown) => Promise<unknown>,
  ) => Promise<void>;
};

function flows(now: number): Flow[] {
  const store = storeNumberOf(41);
  const product = productNumberOf(4241);
  const since = (ms: number) => encodeURIComponent(new Date(now - ms).toISOString());
  return [
    {
      name: 'handheld look-up',
      what: `GET /stores/${store}/products/${product}/stock (twice: the second is the steady state)`,
      run: async (get) => {
        await get(`${API}/stores/${store}/products/${product}/stock`);
        await get(`${API}/stores/${storeNumberOf(42)}/products/${productNumberOf(4242)}/stock`);
      },
    },
    {
      name: 'log pull by Page_Start',
      what: 'GET /products/stock/storeproductlogs?last_modified_date=<100 days ago>&Page_Size=200, pages 1 and 2',
      run: async (get) => {
        for (const page of [1, 2])
          await get(
            `${API}/products/stock/storeproductlogs?last_modified_date=${since(100 * DAY)}&Page_Size=200&Page_Start=${page}`,
          );
      },
    },
    {
      name: 'delta pull',
      what: 'GET /storeproducts/stock?last_stock_modified_datetime=<1 day ago>&Page_Size=200&Page_Start=1',
      run: async (get) => {
        await get(`${API}/storeproducts/stock?last_stock_modified_datetime=${since(DAY)}&Page_Size=200&Page_Start=1`);
      },
    },
    {
      name: 'store listing by Page_Start',
      what: `GET /storeproducts/stock?store_number=${store}&Page_Size=200&Page_Start=25`,
      run: async (get) => {
        await get(`${API}/storeproducts/stock?store_number=${store}&Page_Size=200&Page_Start=25`);
      },
    },
    {
      name: 'late entry',
      what: `POST /stores/${store}/products/stock/storeproductlogs: one delta dated 200 days ago`,
      run: async (_get, post) => {
        const at = new Date(now - 200 * DAY).toISOString();
        await post(`${API}/stores/${store}/products/stock/storeproductlogs`, {
          storeproductlog: [
            { product_number: product, customer_order_line_number: 0, quantity: 1, modification_datetime: at },
          ],
        });
      },
    },
  ];
}

const isRead = (sqlText: string) => /^\s*(select|with)\b/i.test(sqlText);

export async function runPlans(argv: string[]): Promise<void> {
  const options = new Command()
    .name('bench plans')
    .requiredOption('--url <databaseUrl>', 'PostgreSQL URL (with ?schema=) of a chain written by store-ops generate')
    .option('--out <file>', 'where to write the plans', 'docs/plans-at-scale.md')
    .parse(argv, { from: 'user' })
    .opts<{ url: string; out: string }>();
  const schema = new URL(options.url).searchParams.get('schema') ?? 'public';
  const app = await buildApp({
    ...loadConfig({ ...process.env, DATABASE_URL: options.url, STORE_OPS_ADMIN_TOKEN: TOKEN, LOG_LEVEL: 'silent' }),
    port: 0,
  });
  await app.ready();
  const headers = { authorization: `Bearer ${TOKEN}` };
  const ok = (answer: { statusCode: number; body: string }, url: string) => {
    if (answer.statusCode !== 200) throw new Error(`${url}: ${answer.statusCode} ${answer.body.slice(0, 300)}`);
  };
  const get = async (url: string) => ok(await app.inject({ method: 'GET', url, headers }), url);
  const post = async (url: string, payload: unknown) =>
    ok(await app.inject({ method: 'POST', url, headers, payload: payload as object }), url);

  const heard = new Map<string, Heard[]>();
  try {
    for (const flow of flows(Date.now())) {
      const statements: Heard[] = [];
      listenToStatements(app.ctx.db, (sqlText, parameters) => {
        if (!statements.some((s) => s.sql === sqlText)) statements.push({ sql: sqlText, parameters: [...parameters] });
      });
      await flow.run(get, post);
      listenToStatements(app.ctx.db);
      heard.set(flow.name, statements);
    }
  } finally {
    await app.close();
  }

  const client = new pg.Client({ connectionString: options.url.replace(/\?.*$/, '') });
  await client.connect();
  await client.query(`set search_path to ${client.escapeIdentifier(schema)}`);
  const sizes = await client.query<{ entries: string; store_products: string }>(
    'select (select count(*) from stock_logs) as entries, (select count(*) from store_products) as store_products',
  );
  const lines: string[] = [
    '# Plans at chain scale',
    '',
    `Written by \`npm run bench -- plans --url …\` (bench/scale/plans.ts) on ${new Date().toISOString().slice(0, 10)}: PostgreSQL 15, default settings,`,
    `a chain written by \`store-ops generate\` (${Number(sizes.rows[0]!.store_products).toLocaleString('en')} store products, ${Number(sizes.rows[0]!.entries).toLocaleString('en')} entries).`,
    'Each read the flow sent, run again under `EXPLAIN (ANALYZE, BUFFERS)` with the parameters it was sent with;',
    'writes are listed only. The same statements on both dialects, as text, are in sql/ (docs/stock.md "The SQL a reviewer reads").',
  ];
  for (const flow of flows(Date.now())) {
    lines.push('', `## ${flow.name}`, '', flow.what);
    for (const statement of heard.get(flow.name) ?? []) {
      const text = format(statement.sql, { language: 'postgresql', keywordCase: 'lower', tabWidth: 2 });
      lines.push('', '```sql', text, '```');
      if (!isRead(statement.sql)) {
        lines.push('', '(a write: not explained)');
        continue;
      }
      const plan = await client.query<{ 'QUERY PLAN': string }>(
        `explain (analyze, buffers) ${statement.sql}`,
        statement.parameters as unknown[],
      );
      lines.push('', '```', ...plan.rows.map((row) => row['QUERY PLAN']), '```');
    }
  }
  await client.end();
  const out = path.resolve(REPO_ROOT, options.out);
  fs.writeFileSync(out, `${lines.join('\n')}\n`);
  console.log(`written ${path.relative(REPO_ROOT, out)}`);
}
