import type { Command } from 'commander';
import { parseRole, parseStores } from './arguments.js';
import { log, out, UsageError, withDatabase } from './common.js';

/**
 * OAuth2 clients (issue 41, PRODUCT §4; docs/security.md): `store-ops client …` is the CLI face
 * of POST/GET/DELETE /clients; `store-ops keys …` manages the keys their access tokens are signed with.
 */
export function addClientCommands(program: Command): void {
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
        const { createClient, ClientInputError } = await import('../modules/oauth/clients.js');
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
      const { listClientSummaries } = await import('../modules/oauth/clients.js');
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
      const { rotateClientSecret } = await import('../modules/oauth/clients.js');
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
      const { revokeClient } = await import('../modules/oauth/clients.js');
      const revoked = await withDatabase((handle) => revokeClient(handle.db, name));
      if (!revoked) throw new Error(`no live client named '${name}'`);
      out(`revoked ${name}`);
    });
}

/** `store-ops keys list | rotate`: the keys that sign OAuth2 access tokens. */
export function addKeyCommands(program: Command): void {
  const keys = program.command('keys').description('the keys that sign OAuth2 access tokens');
  keys
    .command('list')
    .description('list the signing keys: the one signing, and the older ones still verifying')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      const { listKeySummaries } = await import('../modules/oauth/keys.js');
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
      const { rotateSigningKey } = await import('../modules/oauth/keys.js');
      const rotation = await withDatabase((handle) => rotateSigningKey(handle.db));
      if (rotation.retired.length > 0) log(`retired ${rotation.retired.join(', ')}`);
      if (rotation.ended.length > 0)
        log(`${rotation.ended.join(', ')} verifies until ${new Date(rotation.verifyUntil).toISOString()}`);
      out(`signing with ${rotation.kid}`);
    });
}
