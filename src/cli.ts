import { Command, CommanderError, InvalidArgumentError } from 'commander';
import type { DbHandle } from './db/connect.js';
import { parseDateTime } from './domain/datetime.js';
import { monthLabel, parseMonth } from './db/months.js';
import { createToken, isRole, listTokenSummaries, revokeToken, TokenNameTakenError } from './modules/tokens/service.js';
import type { Violation } from './db/verify-types.js';

/**
 * `store-ops` (PRODUCT §2): results on stdout, diagnostics on stderr, exit 0 on success,
 * 1 when the work failed (or verify found violations), 2 for bad arguments.
 */

class UsageError extends Error {}

const log = (message: string) => process.stderr.write(`${message}\n`);
const out = (message: string) => process.stdout.write(`${message}\n`);

// The database, config and command modules are imported when a command runs: a usage
// error or --help answers at once instead of first loading every driver and module.
async function withDatabase<T>(work: (handle: DbHandle) => Promise<T>, migrateFirst = true): Promise<T> {
  const [{ loadConfig }, { createDb }, { migrateToLatest }] = await Promise.all([
    import('./config.js'),
    import('./db/connect.js'),
    import('./db/migrate.js'),
  ]);
  const config = loadConfig();
  const handle = createDb(config.databaseUrl, { sqliteSynchronous: config.sqliteSynchronous });
  try {
    if (migrateFirst) await migrateToLatest(handle);
    return await work(handle);
  } finally {
    await handle.close();
  }
}

function parseMonthOption(value: string) {
  const month = parseMonth(value);
  if (month === undefined) throw new InvalidArgumentError('must be a month as YYYY-MM');
  return month;
}

function parseRole(value: string) {
  if (!isRole(value)) throw new InvalidArgumentError('must be one of admin, integration, store, read');
  return value;
}

function parseMoment(value: string) {
  const at = parseDateTime(value);
  if (at === undefined)
    throw new InvalidArgumentError('must be an ISO 8601 date-time (Z, an offset, or neither for UTC)');
  return at;
}

function parseConfigNumber(value: string) {
  if (!/^[0-9]{1,10}$/.test(value) || Number(value) > 2_147_483_647)
    throw new InvalidArgumentError('must be a whole number from 0 to 2147483647');
  return Number(value);
}

function parseCount(min: number, max: number) {
  return (value: string) => {
    if (!/^[0-9]{1,10}$/.test(value) || Number(value) < min || Number(value) > max)
      throw new InvalidArgumentError(`must be a whole number from ${min} to ${max}`);
    return Number(value);
  };
}

/** A feed sequence: a whole number from 1 up to the largest JSON-safe integer. */
function parseSequence(value: string) {
  if (!/^[0-9]{1,16}$/.test(value) || Number(value) < 1 || !Number.isSafeInteger(Number(value)))
    throw new InvalidArgumentError('must be a sequence: a whole number, 1 or more');
  return Number(value);
}

function parseStores(value: string) {
  const stores = value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (stores.length === 0) throw new InvalidArgumentError('must list at least one store number');
  return stores;
}

export function buildCli(): Command {
  const program = new Command('store-ops')
    .description('Store Operations Service command line (uses DATABASE_URL like the server)')
    .exitOverride()
    .showHelpAfterError()
    .configureOutput({ writeErr: (text) => process.stderr.write(text) });

  program
    .command('migrate')
    .description('apply pending database migrations')
    .action(async () => {
      // Not migrated beforehand, so the migrations this run applies are the ones it reports.
      const applied = await withDatabase(migrateToLatestNamed, false);
      out(applied.length === 0 ? 'database is up to date' : `applied ${applied.join(', ')}`);
    });

  const token = program.command('token').description('manage API tokens');
  token
    .command('create')
    .description('create a token; prints it alone on the last line (it is shown only now)')
    .requiredOption('--name <name>', 'unique token name')
    .requiredOption('--role <role>', 'admin | integration | store | read', parseRole)
    .option('--stores <list>', 'comma-separated store numbers (store role)', parseStores)
    .option('--expires <iso>', 'expiry date-time, ISO 8601', parseMoment)
    .action(
      async (options: { name: string; role: ReturnType<typeof parseRole>; stores?: string[]; expires?: number }) => {
        if (options.role === 'store' && !options.stores) throw new UsageError('a store token needs --stores');
        if (options.name.trim() === '' || options.name.length > 100)
          throw new UsageError('--name must be 1 to 100 characters');
        const value = await withDatabase((handle) =>
          createToken(handle.db, {
            name: options.name,
            role: options.role,
            stores: options.stores,
            expiresAt: options.expires,
            createdBy: 'cli',
          }),
        );
        log(`created token '${options.name}' (${options.role})`);
        out(value);
      },
    );
  token
    .command('list')
    .description('list tokens (never their values)')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      const tokens = await withDatabase((handle) => listTokenSummaries(handle.db));
      if (options.json) {
        out(JSON.stringify(tokens, null, 2));
        return;
      }
      for (const t of tokens) {
        const state = t.revoked ? `revoked ${t.revoked}` : t.expires ? `expires ${t.expires}` : 'active';
        out(`${t.name}\t${t.role}\t${t.stores?.join(',') ?? '*'}\t${state}`);
      }
    });
  token
    .command('revoke')
    .description('revoke a token by name (takes effect within a second)')
    .argument('<name>', 'token name')
    .action(async (name: string) => {
      const revoked = await withDatabase((handle) => revokeToken(handle.db, name));
      if (!revoked) throw new Error(`no active token named '${name}'`);
      out(`revoked ${name}`);
    });

  // OAuth2 clients (issue 41, PRODUCT §4; docs/security.md): the CLI face of POST/GET/DELETE /clients.
  const client = program
    .command('client')
    .description('manage OAuth2 clients (client credentials at POST /oauth2/token)');
  client
    .command('create')
    .description('register a client; prints its client_id and secret (the secret is shown only now)')
    .requiredOption('--name <name>', 'unique client name')
    .requiredOption('--role <role>', 'admin | integration | store | read', parseRole)
    .option('--stores <list>', 'comma-separated store numbers (store role)', parseStores)
    .option('--scope <scope>', 'space-separated scopes narrowing the client (docs/security.md "Scopes")')
    .option('--json', 'print {"client_id","client_secret"} alone on stdout')
    .action(
      async (options: {
        name: string;
        role: ReturnType<typeof parseRole>;
        stores?: string[];
        scope?: string;
        json?: boolean;
      }) => {
        if (options.role === 'store' && !options.stores) throw new UsageError('a store client needs --stores');
        if (options.role !== 'store' && options.stores) throw new UsageError('--stores is for the store role only');
        if (options.name.trim() === '' || options.name.length > 100)
          throw new UsageError('--name must be 1 to 100 characters');
        const { createClient, ClientInputError } = await import('./modules/oauth/clients.js');
        const created = await withDatabase(async (handle) => {
          try {
            return await createClient(handle.db, {
              name: options.name,
              role: options.role,
              stores: options.stores,
              scope: options.scope,
              createdBy: 'cli',
            });
          } catch (error) {
            if (error instanceof ClientInputError) throw new UsageError(error.message);
            throw error;
          }
        });
        if (options.json) {
          out(JSON.stringify({ client_id: created.client_id, client_secret: created.client_secret }));
          return;
        }
        log(`created client '${options.name}' (${options.role}); the secret is shown only now`);
        out(`client_id\t${created.client_id}`);
        out(`client_secret\t${created.client_secret}`);
      },
    );
  client
    .command('list')
    .description('list clients (never their secrets)')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      const { listClientSummaries } = await import('./modules/oauth/clients.js');
      const clients = await withDatabase((handle) => listClientSummaries(handle.db));
      if (options.json) {
        out(JSON.stringify(clients, null, 2));
        return;
      }
      for (const c of clients) {
        const state = c.revoked
          ? `revoked ${c.revoked}`
          : c.previous_secret_valid_until
            ? `active (previous secret until ${c.previous_secret_valid_until})`
            : 'active';
        out(`${c.name}\t${c.client_id}\t${c.role}\t${c.stores?.join(',') ?? '*'}\t${c.scope ?? '-'}\t${state}`);
      }
    });
  client
    .command('rotate-secret')
    .description('give a client a new secret (shown only now); the previous one works for 24 h more')
    .argument('<name>', 'client name')
    .option('--json', 'print {"client_id","client_secret","previous_secret_valid_until"} alone on stdout')
    .action(async (name: string, options: { json?: boolean }) => {
      const { rotateClientSecret } = await import('./modules/oauth/clients.js');
      const rotated = await withDatabase((handle) => rotateClientSecret(handle.db, name));
      if (!rotated) throw new Error(`no live client named '${name}'`);
      if (options.json) {
        out(
          JSON.stringify({
            client_id: rotated.client_id,
            client_secret: rotated.client_secret,
            previous_secret_valid_until: rotated.previous_secret_valid_until,
          }),
        );
        return;
      }
      log(`new secret for '${name}'; the previous one works until ${rotated.previous_secret_valid_until}`);
      out(`client_secret\t${rotated.client_secret}`);
    });
  client
    .command('revoke')
    .description('revoke a client for good: no new token, its access tokens refused within a second')
    .argument('<name>', 'client name')
    .action(async (name: string) => {
      const { revokeClient } = await import('./modules/oauth/clients.js');
      const revoked = await withDatabase((handle) => revokeClient(handle.db, name));
      if (!revoked) throw new Error(`no live client named '${name}'`);
      out(`revoked ${name}`);
    });

  const keys = program.command('keys').description('the keys that sign OAuth2 access tokens');
  keys
    .command('list')
    .description('list the signing keys: the one signing, and the older ones still verifying')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      const { listKeySummaries } = await import('./modules/oauth/keys.js');
      const summaries = await withDatabase((handle) => listKeySummaries(handle.db));
      if (options.json) {
        out(JSON.stringify(summaries, null, 2));
        return;
      }
      for (const k of summaries) {
        out(
          `${k.kid}\t${k.algorithm}\t${k.signing ? 'signing' : `verifying until ${new Date(k.verify_until!).toISOString()}`}`,
        );
      }
    });
  keys
    .command('rotate')
    .description(
      'a new key signs from now on; the old one verifies until every token it signed has expired; retired keys are deleted',
    )
    .action(async () => {
      const { rotateSigningKey } = await import('./modules/oauth/keys.js');
      const rotation = await withDatabase((handle) => rotateSigningKey(handle.db));
      if (rotation.retired.length > 0) log(`retired ${rotation.retired.join(', ')}`);
      if (rotation.ended.length > 0)
        log(`${rotation.ended.join(', ')} verifies until ${new Date(rotation.verifyUntil).toISOString()}`);
      out(`signing with ${rotation.kid}`);
    });

  const lists = program
    .command('productlists')
    .description('configure product list types and the handheld modules that create them');
  lists
    .command('show')
    .description('list the configured types and modules')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      const { listConfiguration } = await import('./modules/product-lists/configuration.js');
      const configuration = await withDatabase((handle) => listConfiguration(handle.db));
      if (options.json) {
        out(JSON.stringify(configuration, null, 2));
        return;
      }
      for (const t of configuration.types) out(`type\t${t.type}\t${t.description}`);
      for (const m of configuration.modules) out(`module\t${m.module_id}\ttype ${m.type}`);
    });
  lists
    .command('type')
    .description('name a list type (type_description on read), or rename it')
    .argument('<type>', 'list type number', parseConfigNumber)
    .argument('<description>', 'its name')
    .action(async (type: number, description: string) => {
      if (description.trim() === '' || description.length > 255)
        throw new UsageError('<description> must be 1 to 255 characters');
      const { setListType } = await import('./modules/product-lists/configuration.js');
      await withDatabase((handle) => setListType(handle.db, type, description));
      out(`type ${type}: ${description}`);
    });
  lists
    .command('module')
    .description('the list type a handheld module creates (module_id on POST …/productlists)')
    .argument('<module_id>', 'module number', parseConfigNumber)
    .argument('<type>', 'a configured list type', parseConfigNumber)
    .action(async (moduleId: number, type: number) => {
      const { setModuleType } = await import('./modules/product-lists/configuration.js');
      await withDatabase((handle) => setModuleType(handle.db, moduleId, type));
      out(`module ${moduleId}: type ${type}`);
    });
  lists
    .command('remove-module')
    .description('forget a module: creating a list for it is then a 422')
    .argument('<module_id>', 'module number', parseConfigNumber)
    .action(async (moduleId: number) => {
      const { removeModule } = await import('./modules/product-lists/configuration.js');
      const removed = await withDatabase((handle) => removeModule(handle.db, moduleId));
      if (!removed) throw new Error(`no module ${moduleId} is configured`);
      out(`removed module ${moduleId}`);
    });

  program
    .command('verify')
    .description('check every stored invariant; exit 1 on any violation')
    .option(
      '--since <iso>',
      'only the stock invariants of the balances touched since this date-time, ISO 8601 (the nightly run)',
      parseMoment,
    )
    .action(async (options: { since?: number }) => {
      const { verifyAll, verifySince } = await import('./verify.js');
      const since = options.since;
      if (since === undefined) {
        reportViolations(await withDatabase(verifyAll), 'ok: every invariant holds');
        return;
      }
      const report = await withDatabase((handle) => verifySince(handle, since));
      log(`checks without a --since form, not run: ${report.skipped.join(', ')}`);
      reportViolations(
        report.violations,
        `ok: every invariant of the balances touched since ${new Date(since).toISOString()} holds (${report.balances} balances; stock checks only, the full verify runs the rest)`,
      );
    });

  const ledger = program
    .command('ledger')
    .description("the ledger's months on PostgreSQL: list them, archive old ones (docs/operations.md)");
  ledger
    .command('months')
    .description("list the ledger's partitions by month with their estimated rows, and the archives made")
    .action(async () => {
      await withDatabase(async (handle) => {
        if (!handle.dialect.ledgerArchive) {
          out('the ledger is one table on this database (SQLite): no months to list');
          return;
        }
        for (const month of await handle.dialect.ledgerArchive.months(handle.db)) {
          const range = month.isDefault
            ? 'after the last month'
            : month.from === null
              ? `before ${monthLabel(month.to!)}`
              : monthLabel(month.from);
          out(`${month.table}\t${range}\t${month.name}\t~${month.rows} rows`);
        }
        const archives = await handle.db.selectFrom('ledger_archives').selectAll().orderBy('boundary_at').execute();
        for (const a of archives) {
          out(
            `archived before ${monthLabel(Number(a.boundary_at))} on ${new Date(Number(a.archived_on)).toISOString()} by ${a.archived_by}: ${a.entries} entries, ${a.parts} parts, ${a.balances} balance snapshots; tables ${(JSON.parse(a.tables) as string[]).join(', ')}`,
          );
        }
      });
    });
  ledger
    .command('archive')
    .description(
      "move the ledger's months before a month out (detached tables to dump and drop), leaving a snapshot per balance; entries dated before it are refused from then on",
    )
    .requiredOption('--before <YYYY-MM>', 'the first month that stays', parseMonthOption)
    .option('--by <name>', 'who archives (recorded)', 'store-ops')
    .action(async (options: { before: number; by: string }) => {
      const { archiveLedgerBefore, ArchiveRefused } = await import('./ledger/archive.js');
      try {
        const report = await withDatabase((handle) => archiveLedgerBefore(handle, options.before, options.by));
        out(
          `archived before ${monthLabel(report.boundary)}: ${report.entries} entries, ${report.parts} parts, ${report.balances} balance snapshots`,
        );
        out(`detached tables (dump them, e.g. pg_dump -t, then drop them): ${report.tables.join(', ') || 'none'}`);
      } catch (error) {
        if (error instanceof ArchiveRefused) throw new UsageError(`not archived: ${error.message}`);
        throw error;
      }
    });

  const webhooks = program
    .command('webhooks')
    .description('webhook subscriptions: health, replay, resume (PRODUCT §9, docs/events.md)');
  webhooks
    .command('list')
    .description('list subscriptions with their delivery health (never their secrets)')
    .option('--json', "print JSON (the API's Subscription objects)")
    .action(async (options: { json?: boolean }) => {
      const { listSubscriptions } = await import('./modules/webhooks/service.js');
      const { webhooks: list } = await withDatabase(listSubscriptions);
      if (options.json) {
        out(JSON.stringify(list, null, 2));
        return;
      }
      for (const w of list) {
        const health = w.failing_since === null ? 'ok' : `failing since ${w.failing_since}: ${w.last_error}`;
        out(`${w.id}\t${w.status}\t${w.url}\tafter ${w.after_sequence}\t${w.pending_events} pending\t${health}`);
      }
    });
  webhooks
    .command('replay')
    .description(
      'deliver again from a sequence: the next batch starts with the first matching event whose sequence is <sequence> or more (a paused subscription still needs resume)',
    )
    .argument('<id>', 'subscription id', parseCount(1, 2_147_483_647))
    .requiredOption('--from <sequence>', 'the first sequence to deliver (1 or more)', parseSequence)
    .action(async (id: number, options: { from: number }) => {
      const { replaySubscription } = await import('./modules/webhooks/service.js');
      const replayed = await withDatabase((handle) => replaySubscription(handle, id, options.from));
      out(`webhook ${id}: delivery goes on from sequence ${options.from} (${replayed.pending_events} events pending)`);
      if (replayed.status === 'paused') log(`webhook ${id} is paused: store-ops webhooks resume ${id} to deliver`);
    });
  webhooks
    .command('resume')
    .description(
      'resume a paused subscription (or retry a failing one now): the batch it was sending goes out again at once',
    )
    .argument('<id>', 'subscription id', parseCount(1, 2_147_483_647))
    .action(async (id: number) => {
      const { resumeSubscription } = await import('./modules/webhooks/service.js');
      const resumed = await withDatabase((handle) => resumeSubscription(handle, id));
      out(
        `webhook ${id}: ${resumed.status}, next attempt at ${resumed.next_attempt_at} (${resumed.pending_events} events pending)`,
      );
    });

  program
    .command('generate')
    .description(
      'write a generated chain (stores, products, a year of stock history) into an empty database, for capacity planning and the scale bench',
    )
    .option('--stores <n>', 'stores', parseCount(1, 99_999), 10)
    .option('--products <n>', 'products, every store carries all', parseCount(1, 9_999_999), 1_000)
    .option('--days <n>', 'days of history, ending today', parseCount(0, 3_650), 365)
    .option(
      '--entries-per-day <n>',
      'history entries per day over the chain (after one opening count per store product)',
      parseCount(0, 10_000_000),
      1_000,
    )
    .option('--seed <n>', 'random seed: the same seed writes the same chain', parseCount(0, 2_147_483_647), 1)
    .action(
      async (options: { stores: number; products: number; days: number; entriesPerDay: number; seed: number }) => {
        const [{ loadConfig }, { generateChain }, { CursorCodec }, { createAppContext }] = await Promise.all([
          import('./config.js'),
          import('./generate/generate-chain.js'),
          import('./shared/cursor.js'),
          import('./create-context.js'),
        ]);
        const summary = await withDatabase(async (handle) => {
          const ctx = createAppContext(loadConfig(), handle, new CursorCodec('generate'));
          return generateChain(ctx, options, log);
        });
        out(
          `generated ${summary.stores} stores × ${summary.products} products (${summary.storeProducts} store products), ${summary.entries} ledger entries in ${summary.seconds.toFixed(1)} s`,
        );
      },
    );

  program
    .command('seed')
    .description('load demo data (idempotent)')
    .action(async () => {
      const [{ loadConfig }, { seedDemoData }, { CursorCodec }, { createAppContext }] = await Promise.all([
        import('./config.js'),
        import('./seed.js'),
        import('./shared/cursor.js'),
        import('./create-context.js'),
      ]);
      const lines = await withDatabase(async (handle) => {
        const config = loadConfig();
        const ctx = createAppContext(config, handle, new CursorCodec('seed'));
        return seedDemoData(ctx);
      });
      for (const line of lines) out(line);
    });

  return program;
}

/** Violations on stdout, one a line, and exit 1; else the line saying what holds. */
function reportViolations(violations: readonly Violation[], okLine: string): void {
  for (const v of violations) out(`VIOLATION ${v.check}: ${v.detail}`);
  if (violations.length > 0) {
    log(`${violations.length} violation(s)`);
    process.exitCode = 1;
  } else {
    out(okLine);
  }
}

const migrateToLatestNamed = async (handle: DbHandle) => (await import('./db/migrate.js')).migrateToLatest(handle);

export async function runCli(argv: string[]): Promise<number> {
  try {
    await buildCli().parseAsync(argv, { from: 'user' });
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help asked for exits 0; every other parsing failure (no command included) is a usage error.
      return error.exitCode === 0 ? 0 : 2;
    }
    if (error instanceof UsageError) {
      log(`error: ${error.message}`);
      return 2;
    }
    if (error instanceof TokenNameTakenError) {
      log(`error: ${error.message}`);
      return 1;
    }
    log(`error: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}

process.exitCode = await runCli(process.argv.slice(2));
