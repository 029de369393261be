import closeWithGrace from 'close-with-grace';
import { buildApp } from './app.js';
import { beginClosing, drainArrivals } from './plugins/shutdown.js';
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
  if (config.benchWithoutStockEvents)
    app.log.warn(
      'BENCH_WITHOUT_STOCK_EVENTS is set: stock changes write no events, so the change feed and webhooks miss them (bench only)',
    );
  // Background work of the process (besides the feed's and the webhooks', stopped in app.ts):
  // each job runs one pass at a time, and the close stops the timers and waits for the pass
  // under way before the pools end (issue 40: nothing of it holds the close or runs after it).
  const running = new Set<Promise<unknown>>();
  let stopping = false;
  const pass = (work: () => Promise<unknown>) => {
    if (stopping) return;
    const run = work().finally(() => running.delete(run));
    running.add(run);
  };
  const purge = setInterval(
    () => {
      pass(() =>
        purgeExpiredIdempotencyKeys(app.ctx.db).catch((error) =>
          app.log.warn({ err: error }, 'idempotency purge failed'),
        ),
      );
      // The ledger's months ahead (PostgreSQL): a month is made weeks before its first entry.
      pass(() =>
        app.ctx.handle.dialect
          .ensureLedgerMonths(app.ctx.db, Date.now())
          .then((made) => made.length > 0 && app.log.info({ partitions: made }, 'made the ledger months ahead'))
          .catch((error) => app.log.warn({ err: error }, 'making the ledger months ahead failed')),
      );
    },
    60 * 60 * 1000,
  );
  purge.unref();
  // The log pull's hour counts gather a delta row per write on PostgreSQL: merged every few
  // seconds, so a count sums one row per hour (ledger/log-hours.ts, stock-logs/log-pull.ts).
  let merging = false;
  const mergeHours = setInterval(() => {
    if (merging) return;
    merging = true;
    pass(() =>
      mergeLogHours(app.ctx.handle)
        .catch((error) => app.log.warn({ err: error }, 'merging the stock log hours failed'))
        .finally(() => (merging = false)),
    );
  }, 10_000);
  mergeHours.unref();
  app.addHook('preClose', async () => {
    stopping = true;
    clearInterval(purge);
    clearInterval(mergeHours);
    await Promise.allSettled([...running]);
  });

  // SIGTERM/SIGINT: stop accepting, finish in-flight requests, exit within 5 s (PRODUCT §2).
  // New requests are answered 503 in the envelope and work past the grace is cut
  // (plugins/shutdown.ts); close-with-grace's 4.5 s timer is only the last resort.
  // A signal the operator gave node for heap snapshots (`--heapsnapshot-signal=SIGUSR2`, as
  // `npm run soak -- --heap-snapshots` does) takes a snapshot, not the process down.
  const snapshotSignal = /--heapsnapshot-signal=(SIG[A-Z0-9]+)/.exec(
    `${process.execArgv.join(' ')} ${process.env.NODE_OPTIONS ?? ''}`,
  )?.[1];
  closeWithGrace(
    { delay: 4500, ...(snapshotSignal === undefined ? {} : { skip: [snapshotSignal as 'SIGUSR2'] }) },
    async ({ signal, err }) => {
      if (err) app.log.error({ err }, 'shutting down after an error');
      else app.log.info({ signal }, 'shutting down');
      // New requests are answered 503 in the envelope from now on; those already on their way
      // on kept-alive connections are read and answered so before the connections close.
      beginClosing(app);
      await drainArrivals(app);
      // Idle keep-alive connections are closed by the server's close; every answer from then on
      // says `Connection: close` (plugins/shutdown.ts), so a connection ends with its answer. One
      // whose answer had begun before the close stays open and idle — the server would wait for
      // it until its client lets go, past the 5 s of PRODUCT §2: swept now and then. Not every
      // few milliseconds: a client writes its next request the moment its answer is complete,
      // and a connection closed in that instant is a reset without an answer (issue 40).
      const sweep = setInterval(() => app.server.closeIdleConnections(), 500);
      try {
        await app.close();
      } finally {
        clearInterval(sweep);
      }
      app.log.info('shut down: every request answered, background work stopped, database closed');
    },
  );

  await app.listen({ port: config.port, host: config.host });
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) process.stderr.write(`${error.message}\n`);
  else
    process.stderr.write(
      `Failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
  process.exit(1);
});
