import type { Command } from 'commander';
import { monthLabel } from '../db/months.js';
import { parseMonthOption } from './arguments.js';
import { out, UsageError, withDatabase } from './common.js';

/** `store-ops ledger months | archive`: the ledger's months on PostgreSQL (docs/operations.md). */
export function addLedgerCommands(program: Command): void {
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
      const { archiveLedgerBefore, ArchiveRefused } = await import('../ledger/archive.js');
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
}
