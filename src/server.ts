import closeWithGrace from 'close-with-grace';
import { buildApp } from './app.js';
import { ConfigError, loadConfig } from './config.js';
import { purgeExpiredIdempotencyKeys } from './plugins/idempotency.js';
import { mergeLogHours } from './ledger/log-hours.js';

/** Process entry: `npm start`. Logs go to stdout (PRODUCT §2 run contract). */
async function main(): Promise<void> {
  const config = loadConfig();
  config.onGeneratedAdminToken = (token) => {
    // Printed once, on the first start of an empty database; only the hash is stored.
    process.stdout.write(
      `\nNo API token existed, so an admin token was generated. It is shown only now:\n\n  ${token}\n\n` +
        `Use it as: Authorization: Bearer <token>\n` +
        `or paste it into the store console: http://${config.host}:${config.port}/console\n\n`,
    );
  };
  const app = await buildApp(config, { logger: true });
  if (config.benchWithoutStockEvents) app.log.warn('BENCH_WITHOUT_STOCK_EVENTS is set: stock changes write no events, so the change feed and webhooks miss them (bench only)');
  const purge = setInterval(() => {
    purgeExpiredIdempotencyKeys(app.ctx.db).catch((error) => app.log.warn({ err: error }, 'idempotency purge failed'));
    // The ledger's months ahead (PostgreSQL): a month is made weeks before its first entry.
    app.ctx.handle.dialect
      .ensureLedgerMonths(app.ctx.db, Date.now())
      .then((made) => made.length > 0 && app.log.info({ partitions: made }, 'made the ledger months ahead'))
      .catch((error) => app.log.warn({ err: error }, 'making the ledger months ahead failed'));
  }, 60 * 60 * 1000);
  purge.unref();
  // The log pull's hour counts gather a delta row per write on PostgreSQL: merged every few
  // seconds, so a count sums one row per hour (ledger/log-hours.ts, stock-logs/log-pull.ts).
  const mergeHours = setInterval(() => {
    mergeLogHours(app.ctx.handle).catch((error) => app.log.warn({ err: error }, 'merging the stock log hours failed'));
  }, 10_000);
  mergeHours.unref();

  // SIGTERM/SIGINT: stop accepting, finish in-flight requests, exit within 5 s.
  closeWithGrace({ delay: 4500 }, async ({ signal, err }) => {
    if (err) app.log.error({ err }, 'shutting down after an error');
    else app.log.info({ signal }, 'shutting down');
    clearInterval(purge);
    clearInterval(mergeHours);
    // A keep-alive connection that was answering when the close began stays open after its
    // answer, and the server waits for it until the client lets go — past the 5 s the run
    // contract allows (PRODUCT §2), cut off by the grace timer. Close each one as soon as it is
    // idle; requests in flight still finish.
    const sweep = setInterval(() => app.server.closeIdleConnections(), 50);
    try {
      await app.close();
    } finally {
      clearInterval(sweep);
    }
  });

  await app.listen({ port: config.port, host: config.host });
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) process.stderr.write(`${error.message}\n`);
  else process.stderr.write(`Failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
