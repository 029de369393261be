import { spawn } from 'node:child_process';
import { afterAll, describe, it } from 'vitest';
import { REPO_ROOT } from '../../bench/lib/processes.js';
import { API, buildTestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';
import { restartableDatabaseUrl } from '../helpers/factories.js';

interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

function storeOps(args: string[], databaseUrl: string): Promise<CliResult> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(process.execPath, ['bin/store-ops.js', ...args], {
      cwd: REPO_ROOT,
      env: { ...process.env, DATABASE_URL: databaseUrl },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolveRun({ code, stdout, stderr }));
  });
}

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

// Each call starts Node and tsx: a loaded machine makes every call slow, hence the timeout.
describe('store-ops client … and keys … (issue 41, PRODUCT §4)', { timeout: 180_000 }, () => {
  afterAll(async () => {
    for (const dialect of DIALECTS) await dialect.cleanup();
  });

  for (const dialect of DIALECTS) {
    it.concurrent(`client create --json, list, rotate-secret, revoke and keys rotate against a running app (${dialect.name})`, async ({
      expect,
    }) => {
      const databaseUrl = await restartableDatabaseUrl(dialect);
      const t = await buildTestApp(dialect, { databaseUrl });
      const token = (credentials: Record<string, string>) =>
        t.app.inject({
          method: 'POST',
          url: '/oauth2/token',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          payload: form({ grant_type: 'client_credentials', ...credentials }),
        });
      try {
        const created = await storeOps(
          [
            'client',
            'create',
            '--name',
            'tap',
            '--role',
            'store',
            '--stores',
            'S1,S2',
            '--scope',
            'store:S1',
            '--json',
          ],
          databaseUrl,
        );
        expect(created.code, created.stderr).toBe(0);
        const credentials = JSON.parse(created.stdout) as Record<string, string>;
        expect(Object.keys(credentials)).toEqual(['client_id', 'client_secret']);
        expect(
          Buffer.from(credentials.client_secret!.replace(/^socs_/, ''), 'base64url').length,
        ).toBeGreaterThanOrEqual(32);
        const issued = await token(credentials);
        expect(issued.statusCode, issued.body).toBe(200);
        expect(issued.json().scope).toBe('store store:S1');

        const plain = await storeOps(['client', 'create', '--name', 'erp', '--role', 'integration'], databaseUrl);
        expect(plain.code, plain.stderr).toBe(0);
        expect(plain.stdout).toMatch(/^client_id\tsoc_[0-9a-f]+\nclient_secret\tsocs_/);

        const listed = await storeOps(['client', 'list', '--json'], databaseUrl);
        expect(listed.code, listed.stderr).toBe(0);
        const clients = JSON.parse(listed.stdout);
        expect(clients).toEqual([
          expect.objectContaining({
            name: 'tap',
            client_id: credentials.client_id,
            role: 'store',
            stores: ['S1', 'S2'],
            scope: 'store store:S1',
            revoked: null,
          }),
          expect.objectContaining({ name: 'erp', role: 'integration', stores: null, scope: null }),
        ]);
        expect(listed.stdout).not.toMatch(/socs_/);
        const table = await storeOps(['client', 'list'], databaseUrl);
        expect(table.stdout).toMatch(/^tap\tsoc_[0-9a-f]+\tstore\tS1,S2\tstore store:S1\tactive$/m);

        const rotated = await storeOps(['client', 'rotate-secret', 'tap', '--json'], databaseUrl);
        expect(rotated.code, rotated.stderr).toBe(0);
        const { client_secret } = JSON.parse(rotated.stdout);
        expect((await token({ client_id: credentials.client_id!, client_secret })).statusCode).toBe(200);
        expect((await token(credentials)).statusCode).toBe(200);

        const access = (await token(credentials)).json().access_token as string;
        expect((await t.get(`${API}/tokens/current`, access)).statusCode).toBe(200);
        const revoked = await storeOps(['client', 'revoke', 'tap'], databaseUrl);
        expect(revoked.code, revoked.stderr).toBe(0);
        expect(revoked.stdout.trim()).toBe('revoked tap');
        await new Promise((r) => setTimeout(r, 1100));
        expect((await t.get(`${API}/tokens/current`, access)).statusCode).toBe(401);
        expect((await token({ client_id: credentials.client_id!, client_secret })).statusCode).toBe(401);
        const again = await storeOps(['client', 'revoke', 'tap'], databaseUrl);
        expect(again.code).toBe(1);
        expect(again.stderr).toMatch(/no live client named 'tap'/);

        const erp = Object.fromEntries(
          plain.stdout
            .trim()
            .split('\n')
            .map((line) => line.split('\t')),
        ) as Record<string, string>;
        const before = (await token(erp)).json().access_token as string;
        const rotation = await storeOps(['keys', 'rotate'], databaseUrl);
        expect(rotation.code, rotation.stderr).toBe(0);
        const kid = /^signing with (\S+)$/.exec(rotation.stdout.trim())![1];
        const keys = JSON.parse((await storeOps(['keys', 'list', '--json'], databaseUrl)).stdout);
        expect(keys.filter((k: { signing: boolean }) => k.signing).map((k: { kid: string }) => k.kid)).toEqual([kid]);
        expect(keys).toHaveLength(2);
        expect((await t.get(`${API}/tokens/current`, before)).statusCode).toBe(200);
        const after = (await token(erp)).json().access_token as string;
        expect(JSON.parse(Buffer.from(after.split('.')[0]!, 'base64url').toString()).kid).toBe(kid);
        expect((await t.get(`${API}/tokens/current`, after)).statusCode).toBe(200);
      } finally {
        await t.close();
      }
    });
  }

  it.concurrent('bad client arguments exit 2 before any secret is printed', async ({ expect }) => {
    const databaseUrl = await restartableDatabaseUrl(DIALECTS[0]!);
    const cases: Array<[string[], RegExp]> = [
      [['client', 'create', '--name', 'x', '--role', 'superuser'], /role/],
      [['client', 'create', '--role', 'read'], /--name/],
      [['client', 'create', '--name', 'x', '--role', 'store'], /--stores/],
      [['client', 'create', '--name', 'x', '--role', 'read', '--stores', 'S1'], /--stores/],
      [['client', 'create', '--name', 'x', '--role', 'read', '--scope', 'admin'], /scope/],
      [['client', 'rotate-secret'], /name/],
    ];
    for (const [args, message] of cases) {
      const result = await storeOps(args, databaseUrl);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr, args.join(' ')).toMatch(message);
      expect(result.stdout).not.toMatch(/socs_/);
    }
  });
});
