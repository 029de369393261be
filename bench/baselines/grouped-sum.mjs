/**
 * The baseline of stock.verify.1m, run as a process of its own (as `store-ops verify` is):
 * open the database file with better-sqlite3 and run ONE plain grouped sum of the ledger by
 * balance (each row names its balance by id, migration 0021; the ledger is a view of the postings in stock_logs and
 * stock_log_parts since 0022) — the least work that reads every ledger entry and yields every balance.
 * Prints `{"groups": n, "queryMs": ms}` on stdout.
 * Plain JavaScript, run by `node` alone: a floor pays no TypeScript compiler at start, as the
 * CLI, running from its bundle (bin/cli-bundle.js), pays none either.
 * Usage: grouped-sum.mjs <database file>
 */
import SqliteDatabase from 'better-sqlite3';

const file = process.argv[2];
if (file === undefined) throw new Error('usage: grouped-sum.mjs <database file>');
const database = new SqliteDatabase(file, { readonly: true, fileMustExist: true });
const start = process.hrtime.bigint();
const groups = database
  .prepare('select balance_id, sum(delta) as total from stock_ledger group by balance_id')
  .all().length;
const queryMs = Number(process.hrtime.bigint() - start) / 1e6;
database.close();
process.stdout.write(`${JSON.stringify({ groups, queryMs })}\n`);
