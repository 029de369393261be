import { Command, CommanderError } from 'commander';
import { TokenNameTakenError } from './modules/tokens/service.js';
import { addMigrateCommand } from './cli/migrate.js';
import { addTokenCommands } from './cli/tokens.js';
import { addClientCommands, addKeyCommands } from './cli/oauth.js';
import { addProductListCommands } from './cli/product-lists.js';
import { addVerifyCommand } from './cli/verify.js';
import { addLedgerCommands } from './cli/ledger.js';
import { addWebhookCommands } from './cli/webhooks.js';
import { addGenerateCommand, addSeedCommand } from './cli/sample-data.js';
import { log, UsageError } from './cli/common.js';

/**
 * `store-ops` (PRODUCT §2): results on stdout, diagnostics on stderr, exit 0 on success,
 * 1 when the work failed (or verify found violations), 2 for bad arguments. The entry that
 * bin/store-ops.js runs (bundled by bin/cli-bundle.js from this file); each command group
 * lives in src/cli/.
 */

export function buildCli(): Command {
  const program = new Command('store-ops')
    .description('Store Operations Service command line (uses DATABASE_URL like the server)')
    .exitOverride()
    .showHelpAfterError()
    .configureOutput({ writeErr: (text) => process.stderr.write(text) });
  // In this order in --help.
  addMigrateCommand(program);
  addTokenCommands(program);
  addClientCommands(program);
  addKeyCommands(program);
  addProductListCommands(program);
  addVerifyCommand(program);
  addLedgerCommands(program);
  addWebhookCommands(program);
  addGenerateCommand(program);
  addSeedCommand(program);
  return program;
}

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
