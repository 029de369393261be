import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, it } from 'vitest';
import { API, buildTestApp } from './helpers/build.js';
import { DIALECTS } from './helpers/dialects.js';
import { restartableDatabaseUrl, storeInput } from './helpers/factories.js';

/**
 * `store-ops` as an operator runs it (PRODUCT §2): a child process on DATABASE_URL,
 * results on stdout, diagnostics on stderr, exit 0 / 1 (failed) / 2 (bad arguments).
 * The tests are independent (one database each), so those of one dialect run side by
 * side: each call is a whole Node process.
 */

const REPO_ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));

interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * At most one CLI process per CPU at a time: a Node start is CPU-bound, and a starved
 * machine turns into connection timeouts in the tests running beside these.
 */
const slots = { free: Math.max(1, availableParallelism()), waiting: [] as Array<() => void> };

async function storeOps(args: string[], databaseUrl: string): Promise<CliResult> {
  if (slots.free > 0) slots.free--;
  else await new Promise<void>((resolveSlot) => slots.waiting.push(resolveSlot));
  try {
    return await runStoreOps(args, databaseUrl);
  } finally {
    const next = slots.waiting.shift();
    if (next) next();
    else slots.free++;
  }
}

function runStoreOps(args: string[], databaseUrl: string): Promise<CliResult> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(process.execPath, ['bin/store-ops.js', ...args], {
      cwd: REPO_ROOT,
      env: { ...process.env, DATABASE_URL: databaseUrl },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolveRun({ code, stdout, stderr }));
  });
}

const lines = (text: string) => text.split('\n').filter((line) => line !== '');

// Each call starts Node and tsx; a loaded machine makes every call slow, hence the
// generous timeout.
describe('store-ops CLI (PRODUCT §2)', { timeout: 120_000 }, () => {
  afterAll(async () => {
    for (const dialect of DIALECTS) await dialect.cleanup();
  });

  for (const dialect of DIALECTS) {
    describe(dialect.name, () => {
      if (dialect.name === 'sqlite') {
        // A usage error never opens the database, so this one runs on SQLite only.
        it.concurrent('bad arguments exit 2 with a message on stderr', async ({ expect }) => {
          const databaseUrl = await restartableDatabaseUrl(DIALECTS[0]!);
          const cases: Array<[string[], RegExp]> = [
            [['token', 'create', '--name', 'x', '--role', 'superuser'], /role/],
            [['frobnicate'], /unknown command/],
            [['token', 'create', '--role', 'admin'], /--name/],
            [['token', 'create', '--name', 'x', '--role', 'read', '--expires', 'next tuesday'], /expires/],
            [['token', 'create', '--name', 'x', '--role', 'store'], /--stores/],
            [['verify', '--since', 'yesterday'], /--since/],
            [['verify', '--since', '2026-11-28'], /--since/],
            [['verify', '--since'], /--since/],
            [['ledger', 'archive', '--before', '2026-13'], /YYYY-MM/],
            [['ledger', 'archive', '--before', '2026-01-01'], /YYYY-MM/],
            [['ledger', 'archive'], /--before/],
            [[], /Usage/],
          ];
          const results = await Promise.all(cases.map(([args]) => storeOps(args, databaseUrl)));
          results.forEach((result, index) => {
            const [args, message] = cases[index]!;
            expect(result.code, args.join(' ')).toBe(2);
            expect(result.stderr, args.join(' ')).toMatch(message);
            expect(result.stdout, args.join(' ')).not.toMatch(/sot_/);
          });
        });

        it.concurrent('productlists: bad numbers and missing arguments exit 2 before the database is opened', async ({
          expect,
        }) => {
          const databaseUrl = await restartableDatabaseUrl(DIALECTS[0]!);
          const cases: Array<[string[], RegExp]> = [
            [['productlists', 'type', 'abc', 'Name'], /whole number/],
            [['productlists', 'type', '-1', 'Name'], /./],
            [['productlists', 'type', '1.5', 'Name'], /whole number/],
            [['productlists', 'type', '7'], /description/],
            [['productlists', 'type', '7', ''], /description/],
            [['productlists', 'type', '7', '   '], /description/],
            [['productlists', 'type', '7', 'x'.repeat(256)], /description/],
            [['productlists', 'module', '12', 'seven'], /whole number/],
            [['productlists', 'module', '12', '2147483648'], /whole number/],
            [['productlists', 'module', '99999999999', '1'], /whole number/],
            [['productlists', 'module', '12'], /type/],
            [['productlists', 'remove-module', 'x'], /whole number/],
            [['productlists', 'remove-module'], /module_id/],
            [['productlists', 'frobnicate'], /unknown command/],
          ];
          const results = await Promise.all(cases.map(([args]) => storeOps(args, databaseUrl)));
          results.forEach((result, index) => {
            const [args, message] = cases[index]!;
            expect(result.code, args.join(' ')).toBe(2);
            expect(result.stderr, args.join(' ')).toMatch(message);
            expect(result.stdout, args.join(' ')).toBe('');
          });
          // Nothing opened the database: it was never created.
          const { existsSync } = await import('node:fs');
          expect(existsSync(databaseUrl.replace(/^sqlite:/, ''))).toBe(false);
        });
      }

      it.concurrent(`productlists show, type, module and remove-module change what a running server does (${dialect.name})`, async ({
        expect,
      }) => {
        const databaseUrl = await restartableDatabaseUrl(dialect);
        const t = await buildTestApp(dialect, { databaseUrl });
        try {
          const ok = async (args: string[]) => {
            const result = await storeOps(args, databaseUrl);
            expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0);
            return result;
          };
          const failed = async (args: string[], message: RegExp) => {
            const result = await storeOps(args, databaseUrl);
            expect(result.code, args.join(' ')).toBe(1);
            expect(result.stderr, args.join(' ')).toMatch(message);
            expect(result.stdout, args.join(' ')).toBe('');
          };
          const defaults = ['Re-order list', 'Shelf-label list', 'Promotion check', 'Counting list', 'Price check'];
          expect(lines((await ok(['productlists', 'show'])).stdout)).toEqual([
            ...defaults.map((name, i) => `type\t${i + 1}\t${name}`),
            ...defaults.map((_, i) => `module\t${i + 1}\ttype ${i + 1}`),
          ]);
          expect(JSON.parse((await ok(['productlists', 'show', '--json'])).stdout)).toEqual({
            types: defaults.map((description, i) => ({ type: i + 1, description })),
            modules: defaults.map((_, i) => ({ module_id: i + 1, type: i + 1 })),
          });

          expect((await ok(['productlists', 'type', '7', 'Markdown list'])).stdout.trim()).toBe(
            'type 7: Markdown list',
          );
          expect((await ok(['productlists', 'module', '12', '7'])).stdout.trim()).toBe('module 12: type 7');
          const shown = JSON.parse((await ok(['productlists', 'show', '--json'])).stdout);
          expect(shown.types).toContainEqual({ type: 7, description: 'Markdown list' });
          expect(shown.modules).toContainEqual({ module_id: 12, type: 7 });

          // The running server uses it at once: module 12 creates type-7 lists.
          expect((await t.post(`${API}/stores`, { stores: [storeInput('PL1')] })).statusCode).toBe(200);
          const create = (body: Record<string, unknown>) =>
            t.post(`${API}/stores/PL1/productlists`, { product_list_name: 'Cli list', product_list_type: 1, ...body });
          const readList = async (id: number) =>
            (await t.get(`${API}/stores/PL1/productlists?product_list_id=${id}`)).json().list[0];
          const created = await create({ module_id: 12 });
          expect(created.statusCode, created.body).toBe(200);
          const id = created.json().product_list_id;
          expect(await readList(id)).toMatchObject({ type: 7, type_description: 'Markdown list', module_id: 12 });
          await ok(['productlists', 'type', '7', 'Markdown (renamed)']);
          expect((await readList(id)).type_description).toBe('Markdown (renamed)');

          // A module pointing at a type that is not configured: exit 1, nothing changes.
          await failed(['productlists', 'module', '13', '42'], /list type 42 is not configured/);
          expect(JSON.parse((await ok(['productlists', 'show', '--json'])).stdout).modules).not.toContainEqual(
            expect.objectContaining({ module_id: 13 }),
          );
          expect((await create({ module_id: 13 })).statusCode).toBe(422);

          expect((await ok(['productlists', 'remove-module', '12'])).stdout.trim()).toBe('removed module 12');
          const gone = await create({ module_id: 12 });
          expect(gone.statusCode).toBe(422);
          expect(gone.json()).toMatchObject({
            code: 'UNPROCESSABLE',
            errors: [expect.objectContaining({ path: 'module_id' })],
          });
          await failed(['productlists', 'remove-module', '12'], /no module 12 is configured/);
          // The list made for the removed module keeps its type.
          expect(await readList(id)).toMatchObject({ type: 7, module_id: 12 });

          const verified = await ok(['verify']);
          expect(lines(verified.stdout)).toEqual(['ok: every invariant holds']);
        } finally {
          await t.close();
        }
      });

      it.concurrent(`migrate, seed twice, verify (${dialect.name})`, async ({ expect }) => {
        const databaseUrl = await restartableDatabaseUrl(dialect);
        const migrated = await storeOps(['migrate'], databaseUrl);
        expect(migrated.code, migrated.stderr).toBe(0);
        expect(migrated.stdout).toMatch(/^applied 2026-11-22T0001_foundation\b/);
        const again = await storeOps(['migrate'], databaseUrl);
        expect(again.code, again.stderr).toBe(0);
        expect(again.stdout.trim()).toBe('database is up to date');

        const seeded = await storeOps(['seed'], databaseUrl);
        expect(seeded.code, seeded.stderr).toBe(0);
        expect(lines(seeded.stdout)).toContain('stores: created 6, updated 0, unchanged 0, deleted 0');
        // What to try first in the console: a store, a barcode and a name (issue 43).
        expect(lines(seeded.stdout).at(-1)).toMatch(
          /^try in the console \(\/console\): store \S+, scan \d+ \(.+\), or type "\S+"$/,
        );
        // And a delivery to receive and an order to pick, of the ones seeded in every status.
        expect(lines(seeded.stdout)).toContain(
          'deliveries 1001: created 4, updated 0, unchanged 0, deleted 0; received on 2',
        );
        expect(lines(seeded.stdout).at(-2)).toBe(
          'try a floor task in store 1001: receive delivery D1001-1, pick customer order C1001-1',
        );
        const reseeded = await storeOps(['seed'], databaseUrl);
        expect(reseeded.code, reseeded.stderr).toBe(0);
        expect(lines(reseeded.stdout)).toContain('stores: created 0, updated 0, unchanged 6, deleted 0');
        expect(lines(reseeded.stdout)).toEqual(
          expect.arrayContaining([
            'deliveries 1001: already seeded',
            'customer orders 1001: already seeded',
            'reviews 1001: already seeded',
          ]),
        );

        const clean = await storeOps(['verify'], databaseUrl);
        expect(clean.code, clean.stdout + clean.stderr).toBe(0);
        expect(lines(clean.stdout)).toEqual(['ok: every invariant holds']);
        const t = await buildTestApp(dialect, { databaseUrl });
        try {
          await t.app.ctx.db.updateTable('api_tokens').set({ role: 'superuser' }).where('name', '=', 'admin').execute();
        } finally {
          await t.close();
        }
        const broken = await storeOps(['verify'], databaseUrl);
        expect(broken.code).toBe(1);
        expect(broken.stdout).toMatch(/^VIOLATION tokens: token 'admin' has unknown role 'superuser'$/m);

        // --since runs the stock checks only, over what changed since the moment (an offset is
        // read like everywhere else): the broken token is left to the full verify.
        const nightly = await storeOps(['verify', '--since', '2000-01-01T01:00:00+01:00'], databaseUrl);
        expect(nightly.code, nightly.stdout + nightly.stderr).toBe(0);
        const [line, ...rest] = lines(nightly.stdout);
        expect(rest).toEqual([]);
        expect(line).toMatch(
          /^ok: every invariant of the balances touched since 2000-01-01T00:00:00\.000Z holds \(\d+ balances; stock checks only, the full verify runs the rest\)$/,
        );
        expect(Number(/\((\d+) balances/.exec(line!)![1])).toBeGreaterThan(0);
        expect(nightly.stderr).toMatch(/not run: .*tokens/);
        const t2 = await buildTestApp(dialect, { databaseUrl });
        try {
          await t2.app.ctx.db.updateTable('stock_balances').set({ quantity: 123_456 }).where('id', '=', 1).execute();
        } finally {
          await t2.close();
        }
        const tampered = await storeOps(['verify', '--since', '2000-01-01T00:00:00Z'], databaseUrl);
        expect(tampered.code).toBe(1);
        expect(tampered.stdout).toMatch(
          /^VIOLATION stock ledger: balance store \d+ product \d+ location \d+ pool \d+.*: balance 123\.456, ledger sum /m,
        );
        expect(tampered.stderr).toMatch(/violation\(s\)/);
        const later = await storeOps(
          ['verify', '--since', new Date(Date.now() + 3_600_000).toISOString()],
          databaseUrl,
        );
        expect(later.code, later.stderr).toBe(0);
        expect(lines(later.stdout)).toEqual([expect.stringMatching(/\(0 balances;/)]);
      });

      it.concurrent(`token create, list and revoke work against a running server (${dialect.name})`, async ({
        expect,
      }) => {
        const databaseUrl = await restartableDatabaseUrl(dialect);
        const t = await buildTestApp(dialect, { databaseUrl });
        try {
          const created = await storeOps(['token', 'create', '--name', 'erp', '--role', 'integration'], databaseUrl);
          expect(created.code, created.stderr).toBe(0);
          const token = lines(created.stdout).at(-1)!;
          expect(token).toMatch(/^sot_[A-Za-z0-9_-]{43,}$/);
          expect(created.stderr).toContain('erp');
          const stores = {
            stores: [
              {
                store_number: 'C1',
                store_name: 'CLI',
                is_active: true,
                is_active_data_exchange: true,
                is_warehouse: false,
              },
            ],
          };
          expect((await t.post(`${API}/stores`, stores, token)).statusCode).toBe(200);

          const listed = await storeOps(['token', 'list'], databaseUrl);
          expect(listed.code, listed.stderr).toBe(0);
          expect(lines(listed.stdout)).toEqual(
            expect.arrayContaining(['admin\tadmin\t*\tactive', 'erp\tintegration\t*\tactive']),
          );
          expect(listed.stdout).not.toContain(token);

          const revoked = await storeOps(['token', 'revoke', 'erp'], databaseUrl);
          expect(revoked.code, revoked.stderr).toBe(0);
          expect(revoked.stdout.trim()).toBe('revoked erp');
          // PRODUCT §2: the running server sees it within a second.
          await new Promise((r) => setTimeout(r, 1100));
          expect((await t.get(`${API}/stores`, token)).statusCode).toBe(401);

          const again = await storeOps(['token', 'revoke', 'erp'], databaseUrl);
          expect(again.code).toBe(1);
          expect(again.stderr).toMatch(/no active token named 'erp'/);
        } finally {
          await t.close();
        }
      });
    });
  }
});
