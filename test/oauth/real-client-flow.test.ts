import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, buildTestApp, type TestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';
import { productInput, storeInput } from '../helpers/factories.js';

type Json = Record<string, any>;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const STORES = ['RS1', 'RS2', 'RS3'];
const PRODUCTS = Array.from({ length: 8 }, (_, i) => `RP${i + 1}`);
const PAGE_SIZE = 3;
/** Our tokens live 2 s here: a pull of dozens of pages outlives several of them. */
const TOKEN_SECONDS = 2;

/**
 * What tap-colleqtive does (issue 41, PRODUCT §4): POST a form to its token_url, use the token
 * until a 401, then fetch a new one and retry that request once — a second 401 stops the sync.
 * It pages every stream it pulls by Page_Start until next_page is null.
 */
class TapLikeClient {
  token: string | undefined;
  tokensFetched = 0;
  retries = 0;

  constructor(
    private readonly t: TestApp,
    private readonly credentials: { client_id: string; client_secret: string },
  ) {}

  private async fetchToken(): Promise<void> {
    const response = await this.t.app.inject({
      method: 'POST',
      url: '/oauth2/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({
        grant_type: 'client_credentials',
        ...this.credentials,
        scope: 'integration',
      }).toString(),
    });
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json();
    expect(body.expires_in).toBe(TOKEN_SECONDS);
    this.token = body.access_token;
    this.tokensFetched++;
  }

  async get(url: string): Promise<Json> {
    if (this.token === undefined) await this.fetchToken();
    let response = await this.t.get(url, this.token!);
    if (response.statusCode === 401) {
      expect(response.headers['www-authenticate']).toMatch(/error="invalid_token"/);
      this.retries++;
      await this.fetchToken();
      response = await this.t.get(url, this.token!);
    }
    expect(response.statusCode, `${url}: ${response.body}`).toBe(200);
    return response.json();
  }

  /** Every item of a paged stream, page by page, a pause between pages (a slow consumer). */
  async pull(url: string): Promise<Json[]> {
    const items: Json[] = [];
    for (let page = 1; ; page++) {
      const separator = url.includes('?') ? '&' : '?';
      const body = await this.get(`${url}${separator}Page_Size=${PAGE_SIZE}&Page_Start=${page}`);
      items.push(...body.list);
      if (body.next_page === null || body.list.length === 0) return items;
      // Mid-stream, the consumer stalls past its token's lifetime: the next page meets a 401.
      await sleep(page === 2 ? TOKEN_SECONDS * 1000 + 200 : 50);
    }
  }
}

for (const dialect of DIALECTS) {
  describe(`the real client's flow with expiring tokens (issue 41, ${dialect.name})`, () => {
    let t: TestApp;
    const start = new Date(Date.now() - 60_000).toISOString();

    beforeAll(async () => {
      t = await buildTestApp(dialect, { oauthAccessTokenSeconds: TOKEN_SECONDS, oauthClockSkewSeconds: 0 });
      expect((await t.post(`${API}/stores`, { stores: STORES.map((s) => storeInput(s)) })).statusCode).toBe(200);
      expect((await t.post(`${API}/products`, { products: PRODUCTS.map((p) => productInput(p)) })).statusCode).toBe(
        200,
      );
      for (const store of STORES) {
        const booked = await t.post(`${API}/stores/${store}/products/stock/storeproductlogs`, {
          storeproductlog: PRODUCTS.map((product_number, i) => ({
            product_number,
            quantity: i + 1,
            customer_order_line_number: 0,
            modification_datetime: new Date().toISOString(),
          })),
        });
        expect(booked.statusCode, booked.body).toBe(200);
        // One delivery per store, received: a receipt.
        const order_number = `RO-${store}`;
        const announced = await t.post(`${API}/stores/${store}/orders/deliveries`, {
          orders: [
            {
              order_number,
              order_type: 1,
              datetime_expected: '2026-05-01T08:00:00Z',
              no_of_containers: 1,
              supplier_code: 'SUP',
              supplier_name: 'Supplier',
              order_lines: [{ line_number: 1, product_number: PRODUCTS[0], quantity: 5, target_stock_pool: 1 }],
            },
          ],
        });
        expect(announced.statusCode, announced.body).toBe(200);
        const received = await t.post(`${API}/stores/${store}/orders/deliveries/${order_number}/receive`, {
          lines: [{ line_number: 1, received_quantity: 5 }],
          submit: true,
        });
        expect(received.statusCode, received.body).toBe(200);
      }
      await sleep(5);
    });
    afterAll(async () => {
      await t.close();
      await dialect.cleanup();
    });

    it('pulls every record of every stream exactly once across token expiries', { timeout: 120_000 }, async () => {
      const created = await t.post(`${API}/clients`, { name: 'tap-colleqtive', role: 'integration' });
      expect(created.statusCode, created.body).toBe(201);
      const tap = new TapLikeClient(t, created.json());

      const streams: Array<{ name: string; url: string; key: (item: Json) => string; truth: string }> = [
        { name: 'stores', url: `${API}/stores`, key: (s) => s.store_number, truth: `${API}/stores?Page_Size=1000` },
        {
          name: 'store products by stock moment',
          url: `${API}/storeproducts/stock?last_stock_modified_datetime=${start}`,
          key: (p) => `${p.store_number}/${p.product_number}`,
          truth: `${API}/storeproducts/stock?last_stock_modified_datetime=${start}&Page_Size=1000`,
        },
        {
          name: 'stock logs',
          url: `${API}/products/stock/storeproductlogs?last_modified_date=${start}`,
          key: (l) => String(l.id),
          truth: `${API}/products/stock/storeproductlogs?last_modified_date=${start}&Page_Size=1000`,
        },
        {
          name: 'receipts',
          url: `${API}/orders/receipts?receipt_type=1&last_modified_date=${start}`,
          key: (r) => String(r.import_id),
          truth: `${API}/orders/receipts?receipt_type=1&last_modified_date=${start}&Page_Size=1000`,
        },
      ];

      for (const stream of streams) {
        const pulled = (await tap.pull(stream.url)).map(stream.key);
        const truth = ((await t.get(stream.truth)).json().list as Json[]).map(stream.key);
        expect(truth.length, stream.name).toBeGreaterThan(0);
        expect(new Set(pulled).size, `${stream.name}: nothing repeated`).toBe(pulled.length);
        expect([...pulled].sort(), `${stream.name}: nothing missed`).toEqual([...truth].sort());
      }
      // The long streams (store products, stock logs) outlived a token: a 401 mid-stream each, answered by a new token and one retry.
      expect(tap.retries).toBeGreaterThanOrEqual(2);
      expect(tap.tokensFetched).toBe(tap.retries + 1);
    });
  });
}
