import type { Command } from 'commander';
import { parseCount } from './arguments.js';
import { log, out, withDatabase } from './common.js';

// The commands that fill a database with data written through the services: a generated chain
// of any size (issue 28) and the small demo set.

/** `store-ops generate`: a chain for capacity planning and the scale bench (src/generate/). */
export function addGenerateCommand(program: Command): void {
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
          import('../config.js'),
          import('../generate/generate-chain.js'),
          import('../shared/cursor.js'),
          import('../create-context.js'),
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
}

/** `store-ops seed`: the demo data (src/seed.ts). */
export function addSeedCommand(program: Command): void {
  program
    .command('seed')
    .description('load demo data (idempotent)')
    .action(async () => {
      const [{ loadConfig }, { seedDemoData }, { CursorCodec }, { createAppContext }] = await Promise.all([
        import('../config.js'),
        import('../seed.js'),
        import('../shared/cursor.js'),
        import('../create-context.js'),
      ]);
      const lines = await withDatabase(async (handle) => {
        const config = loadConfig();
        const ctx = createAppContext(config, handle, new CursorCodec('seed'));
        return seedDemoData(ctx);
      });
      for (const line of lines) out(line);
    });
}
