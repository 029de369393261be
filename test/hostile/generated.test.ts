import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { verifyAll } from '../../src/verify.js';
import { ADMIN_TOKEN, API, buildTestApp, type TestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';
import { categoryInput, locationInput, productInput, reasonCodeInput, storeInput } from '../helpers/factories.js';
import { apiOperations, type Operation } from './openapi.js';
import { listen, parseEnvelope, type RawAnswer, type RawClient } from './raw-http.js';
import { variantsOf, type Variant } from './variants.js';

/**
 * Issue 10 §2: hostile variants of every operation the served OpenAPI document lists,
 * sent over HTTP. No answer may be a 5xx; every 4xx is the PRODUCT §3 envelope; the
 * refusals a schema can predict (limits, NUL, lone surrogates, bad encodings, missing
 * fields) name the field; and the data still passes `store-ops verify` afterwards.
 * A new endpoint is covered as soon as it is served.
 */
async function servedOperations(): Promise<Operation[]> {
  const app = await buildApp({
    port: 0,
    host: '127.0.0.1',
    databaseUrl: 'sqlite::memory:',
    adminToken: ADMIN_TOKEN,
    logLevel: 'silent',
    rateLimitPerMinute: 0,
  });
  try {
    return apiOperations((await app.inject({ method: 'GET', url: `${API}/openapi.json` })).json());
  } finally {
    await app.close();
  }
}

const OPERATIONS = await servedOperations();

/** What is wrong with an answer to a variant, or nothing. */
function problemWith(variant: Variant, answer: RawAnswer, plausibleStatus: number): string | undefined {
  if (answer.status >= 500) return `answered ${answer.status}: ${answer.text.slice(0, 200)}`;
  if (variant.sameStatusAsPlausible && answer.status !== plausibleStatus)
    return `answered ${answer.status}, the plausible request ${plausibleStatus}: ${answer.text.slice(0, 200)}`;
  if (variant.status && !variant.status.includes(answer.status))
    return `answered ${answer.status}, expected ${variant.status.join(' or ')}: ${answer.text.slice(0, 200)}`;
  if (answer.status < 400) return undefined;
  const envelope = parseEnvelope(answer.text);
  if (typeof envelope === 'string') return `answered ${answer.status}, ${envelope}`;
  if (
    answer.status === 400 &&
    variant.errorPath !== undefined &&
    !envelope.errors.some((e) => e.path === variant.errorPath)
  ) {
    return `400 without naming ${variant.errorPath}: ${JSON.stringify(envelope.errors.slice(0, 5))}`;
  }
  return undefined;
}

for (const dialect of DIALECTS) {
  describe(`generated hostile input for every operation (${dialect.name})`, () => {
    let t: TestApp;
    let client: RawClient;
    /**
     * Path parameters and natural keys in the examples resolve to these (examples.ts
     * SEEDED); sent again before each operation, since an earlier one may have deleted them.
     */
    const seed = async () => {
      for (const [url, body] of [
        [`${API}/stores`, { stores: [storeInput('S1')] }],
        [`${API}/categories`, { categories: [categoryInput('C1')] }],
        [`${API}/reasoncodes`, { reason_codes: [reasonCodeInput(1, { is_gain: true })] }],
        [`${API}/products`, { products: [productInput('P1', { barcode: 'B1' })] }],
        [`${API}/stores/S1/locations`, { locations: [locationInput('L1')] }],
        [`${API}/stores/S1/storeproducts`, { products: [{ product_number: 'P1' }] }],
      ] as const) {
        const answer = await t.post(url, body);
        expect(answer.statusCode, `${url}: ${answer.body}`).toBe(200);
      }
    };
    beforeAll(async () => {
      t = await buildTestApp(dialect);
      client = await listen(t.app);
    });
    afterAll(async () => {
      client.close();
      await t.close();
      await dialect.cleanup();
    });

    it('covers every operation of the served document', () => {
      expect(OPERATIONS.length).toBeGreaterThan(20);
    });

    for (const operation of OPERATIONS) {
      it(`${operation.method} ${operation.path}`, async () => {
        await seed();
        const findings: string[] = [];
        const variants = variantsOf(operation, { token: ADMIN_TOKEN });
        const send = (variant: Variant) =>
          client
            .request(variant)
            .catch((error: Error) => ({ status: 0, headers: {}, text: `connection failed: ${error.message}` }));
        for (const variant of variants) {
          // Compared with the plausible request sent again just before it: earlier variants may
          // have changed what it touches (an order cancelled by a boundary value is closed now).
          const plausibleStatus = variant.sameStatusAsPlausible ? (await send(variants[0]!)).status : 0;
          const answer = await send(variant);
          const problem = answer.status === 0 ? answer.text : problemWith(variant, answer, plausibleStatus);
          if (problem) findings.push(`${variant.name}: ${problem}`);
        }
        expect(findings).toEqual([]);
      });
    }

    it('leaves data that passes store-ops verify', async () => {
      expect(await verifyAll(t.app.ctx.handle)).toEqual([]);
    });
  });
}
