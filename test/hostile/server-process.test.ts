import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type ServerProcess } from '../helpers/server-process.js';
import { expectEnvelope, parseRawAnswer, sendRaw } from './raw-http.js';

/**
 * The envelope for refusals made before any route runs is set up in buildApp, so the
 * server `npm start` runs (src/server.ts) answers them the same way: checked on the process.
 */
describe('the started server answers pre-route refusals in the envelope', () => {
  let server: ServerProcess;
  let port: number;
  const token = 'hostile-process-admin';
  beforeAll(async () => {
    server = await startServer({ DATABASE_URL: 'sqlite::memory:', STORE_OPS_ADMIN_TOKEN: token });
    port = Number(new URL(server.baseUrl).port);
  }, 40_000);
  afterAll(async () => {
    await server?.stop();
  });

  const send = async (text: string) => parseRawAnswer(await sendRaw(port, text));

  it('400 for invalid percent-encoding in a path', async () => {
    const answer = await send(
      'GET /api/v2/public/stores/%zz/locations HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
    );
    expectEnvelope(answer, 400, 'VALIDATION_FAILED');
  });

  it('431 for a request line over 16 KiB', async () => {
    const answer = await send(`GET /api/v2/public/stores?${'page_size=1&'.repeat(1500)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expectEnvelope(answer, 431, 'HEADERS_TOO_LARGE');
  });

  it('400 naming the field for a lone surrogate in a body', async () => {
    const body =
      '{"stores":[{"store_number":"S2\\ud800","store_name":"n","is_active":true,"is_active_data_exchange":true,"is_warehouse":false}]}';
    const answer = await send(
      `POST /api/v2/public/stores HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
    expect(expectEnvelope(answer, 400, 'VALIDATION_FAILED').errors.map((e) => e.path)).toEqual([
      'stores[0].store_number',
    ]);
  });
});
