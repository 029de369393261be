import type { Command } from 'commander';
import type { Violation } from '../db/verify-types.js';
import { parseMoment } from './arguments.js';
import { log, out, withDatabase } from './common.js';

/** `store-ops verify [--since]`: every stored invariant, or the stock ones of what changed since a moment. */
export function addVerifyCommand(program: Command): void {
  program
    .command('verify')
    .description('check every stored invariant; exit 1 on any violation')
    .option(
      '--since <iso>',
      'only the stock invariants of the balances touched since this date-time, ISO 8601 (the nightly run)',
      parseMoment,
    )
    .action(async (options: { since?: number }) => {
      const { verifyAll, verifySince } = await import('../verify.js');
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
