import type { Command } from 'commander';
import { createToken, listTokenSummaries, revokeToken } from '../modules/tokens/service.js';
import { parseMoment, parseRole, parseStores } from './arguments.js';
import { log, out, UsageError, withDatabase } from './common.js';

/** `store-ops token create | list | revoke`: API tokens (sot_…). */
export function addTokenCommands(program: Command): void {
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
}
