import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'vitest';
import { freePort } from './helpers/server-process.js';

/**
 * The run contract of PRODUCT §2 (`npm start`, readiness, SIGTERM) on a real process.
 * SQLite only on purpose: this is about the process, not the database; every HTTP
 * behaviour is covered on both dialects by the app.inject tests.
 */

const REPO_ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const API = '/api/v2/public';

interface Server {
  child: ChildProcess;
  baseUrl: string;
  stdout: () => string;
  exited: Promise<number | null>;
}

/**
 * `npm start` in its own process group, so the whole tree can be signalled; whatever
 * `use` leaves running is killed afterwards, pass or fail.
 */
async function withServer(
  env: Record<string, string | undefined>,
  use: (server: Server) => Promise<void>,
): Promise<void> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'store-ops-process-'));
  const childEnv: Record<string, string | undefined> = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATABASE_URL: `sqlite:${join(dir, 'x.sqlite')}`,
    ...env,
  };
  for (const [name, value] of Object.entries(childEnv)) if (value === undefined) delete childEnv[name];
  const child = spawn('npm', ['start'], {
    cwd: REPO_ROOT,
    env: childEnv,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  // close-with-grace writes its verdict ("killed by timeout") to stderr: kept with the rest.
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolveExit) => child.once('exit', (code) => resolveExit(code)));
  const server = { child, baseUrl: `http://127.0.0.1:${port}`, stdout: () => output, exited };
  try {
    await use(server);
  } finally {
    if (groupAlive(server)) process.kill(-child.pid!, 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}

async function waitUntilReady(server: Server, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const status = await fetch(`${server.baseUrl}/readyz`).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`not ready within ${timeoutMs} ms; stdout:\n${server.stdout()}`);
}

/** True while any process of the server's group is alive. */
function groupAlive(server: Server): boolean {
  try {
    process.kill(-server.child.pid!, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await condition()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return condition();
}

describe.concurrent('npm start (PRODUCT §2 run contract, SQLite)', { timeout: 90_000 }, () => {
  it('serves, answers /readyz, and on SIGTERM exits 0 inside its grace with every child', async ({ expect }) => {
    const token = 'process-test-admin-token';
    await withServer({ STORE_OPS_ADMIN_TOKEN: token }, async (server) => {
      await waitUntilReady(server);

      const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
      const store = {
        store_number: 'P1',
        store_name: 'Process',
        is_active: true,
        is_active_data_exchange: true,
        is_warehouse: false,
      };
      const created = await fetch(`${server.baseUrl}${API}/stores`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ stores: [store] }),
      });
      expect(created.status).toBe(200);
      expect((await created.json()).message).toBe('created 1, updated 0, unchanged 0, deleted 0');
      const listed = await fetch(`${server.baseUrl}${API}/stores`, { headers });
      expect(listed.status).toBe(200);
      expect((await listed.json()).list.map((s: { store_number: string }) => s.store_number)).toEqual(['P1']);
      expect(server.stdout()).toContain('"msg":"Server listening');

      // The signal goes to `npm start` alone, as a supervisor sends it; the server must hear it.
      // Exit within 5 s is the process's own verdict (issue 40): close-with-grace exits 1 with
      // "killed by timeout" when its 4.5 s pass; a clean close is exit 0 — no stopwatch here,
      // which on a busy machine would time the machine rather than the service.
      server.child.kill('SIGTERM');
      expect(await server.exited, server.stdout().slice(-2000)).toBe(0);
      expect(server.stdout()).not.toContain('killed by timeout');
      expect(await waitFor(() => !groupAlive(server), 15_000)).toBe(true);
      expect(
        await fetch(`${server.baseUrl}/healthz`).then(
          () => 'answered',
          () => 'closed',
        ),
      ).toBe('closed');
      expect(server.stdout()).toContain('shutting down');
    });
  });

  it('without STORE_OPS_ADMIN_TOKEN prints a generated sot_ token once, and it authenticates', async ({ expect }) => {
    await withServer({ STORE_OPS_ADMIN_TOKEN: undefined }, async (server) => {
      await waitUntilReady(server);
      const token = /\b(sot_[A-Za-z0-9_-]{43,})\b/.exec(server.stdout())?.[1];
      expect(token, server.stdout()).toBeDefined();
      const listed = await fetch(`${server.baseUrl}${API}/stores`, { headers: { authorization: `Bearer ${token}` } });
      expect(listed.status).toBe(200);
      const refused = await fetch(`${server.baseUrl}${API}/stores`, { headers: { authorization: 'Bearer sot_wrong' } });
      expect(refused.status).toBe(401);
      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);
      expect(await waitFor(() => !groupAlive(server), 15_000)).toBe(true);
    });
  });
});
