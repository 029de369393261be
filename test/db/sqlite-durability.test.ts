import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { createDb } from '../../src/db/connect.js';

/**
 * PRODUCT §2: an acknowledged write survives a power loss. SQLite's WAL alone survives a
 * process crash; only `synchronous = FULL` syncs each commit to disk, so it is the default
 * and NORMAL is an operator's explicit choice.
 */
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'store-ops-durability-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** PRAGMA synchronous answers 1 for NORMAL and 2 for FULL. */
async function synchronousOf(handle: ReturnType<typeof createDb>): Promise<number> {
  const { rows } = await sql<{ synchronous: number }>`pragma synchronous`.execute(handle.db);
  return rows[0]!.synchronous;
}

describe('SQLite durability setting', () => {
  it('defaults to FULL and accepts NORMAL from SQLITE_SYNCHRONOUS', () => {
    expect(loadConfig({}).sqliteSynchronous).toBe('FULL');
    expect(loadConfig({ SQLITE_SYNCHRONOUS: 'NORMAL' }).sqliteSynchronous).toBe('NORMAL');
    expect(loadConfig({ SQLITE_SYNCHRONOUS: '' }).sqliteSynchronous).toBe('FULL');
  });

  it('refuses any other value instead of guessing', () => {
    expect(() => loadConfig({ SQLITE_SYNCHRONOUS: 'OFF' })).toThrow(ConfigError);
    expect(() => loadConfig({ SQLITE_SYNCHRONOUS: 'full' })).toThrow(/SQLITE_SYNCHRONOUS/);
  });

  it('opens a database file with FULL unless told NORMAL', async () => {
    const full = createDb(`sqlite:${path.join(dir, 'full.sqlite')}`);
    const normal = createDb(`sqlite:${path.join(dir, 'normal.sqlite')}`, { sqliteSynchronous: 'NORMAL' });
    try {
      expect(await synchronousOf(full)).toBe(2);
      expect(await synchronousOf(normal)).toBe(1);
    } finally {
      await full.close();
      await normal.close();
    }
  });

  it('the app built from the environment runs with FULL', async () => {
    const config = loadConfig({
      DATABASE_URL: `sqlite:${path.join(dir, 'app.sqlite')}`,
      LOG_LEVEL: 'silent',
      STORE_OPS_ADMIN_TOKEN: 'x',
    });
    const app = await buildApp(config);
    try {
      expect(await synchronousOf(app.ctx.handle)).toBe(2);
    } finally {
      await app.close();
    }
  });
});
