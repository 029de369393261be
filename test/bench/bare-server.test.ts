import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startBareJsonServer } from '../../bench/lib/baseline-servers.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-bare-test-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('bare Fastify baseline server', () => {
  it('serves exactly the bytes it was given, at the path, for any query', async () => {
    // Multi-byte characters, escapes and no trailing newline: any re-encoding would show.
    const body = Buffer.from(
      JSON.stringify({ list: [{ name: 'Köln Straße 😀', note: 'tab\there', n: 1.5 }], total: 1 }),
      'utf8',
    );
    const server = await startBareJsonServer(dir, '/api/v2/public/stores', body);
    try {
      for (const query of ['', '?page_size=100', '?a=1&b=2']) {
        const response = await fetch(`${server.origin}/api/v2/public/stores${query}`);
        expect(response.status).toBe(200);
        expect(response.headers.get('content-type')).toMatch(/^application\/json/);
        expect(Buffer.from(await response.arrayBuffer()).equals(body)).toBe(true);
      }
      expect((await fetch(`${server.origin}/elsewhere`)).status).toBe(404);
    } finally {
      await server.stop();
    }
  });
});
