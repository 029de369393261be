import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FormatRegistry } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { CreatedSubscription, Subscription } from '../../src/modules/webhooks/schema.js';
import { API, buildTestApp, type TestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';
import { productInput, storeInput } from '../helpers/factories.js';

/**
 * The subscriptions API of PRODUCT §9: what a subscription takes and refuses, what it shows
 * (never its secret after the creation), and who may reach it. The receiver URLs here are
 * loopback ports nobody listens on: deliveries to them fail and are only retried, and the
 * refused URLs are refused before anything is stored, so nothing is ever sent elsewhere.
 */

const WEBHOOKS = `${API}/webhooks`;
/** A loopback port with no listener (the discard port): allowed by the test apps with WEBHOOKS_ALLOW_PRIVATE. */
const NOWHERE = 'http://127.0.0.1:9/hook';
const secretOf = (bytes: number) => `whsec_${randomBytes(bytes).toString('base64')}`;
const paths = (body: { errors: Array<{ path: string }> }) => [...new Set(body.errors.map((e) => e.path))];
// TypeBox's Value.Check knows no formats of its own: the date-time of PRODUCT §3, as the API emits it.
if (!FormatRegistry.Has('date-time'))
  FormatRegistry.Set('date-time', (value) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(value));

for (const dialect of DIALECTS) {
  describe(`webhook subscriptions (${dialect.name})`, () => {
    /** WEBHOOKS_ALLOW_PRIVATE=true, as the tests' loopback receivers need. */
    let t: TestApp;
    /** The production default: private targets refused. Only refusals are made through it. */
    let strict: TestApp;

    beforeAll(async () => {
      [t, strict] = await Promise.all([buildTestApp(dialect, { webhooksAllowPrivate: true }), buildTestApp(dialect)]);
      expect((await t.post(`${API}/stores`, { stores: [storeInput('W1'), storeInput('W2')] })).statusCode).toBe(200);
    });
    afterAll(async () => {
      await Promise.all([t.close(), strict.close()]);
      await dialect.cleanup();
    });

    it('creates a subscription at the end of the feed, with a generated secret shown only in the answer', async () => {
      expect((await t.post(`${API}/products`, { products: [productInput('WP1')] })).statusCode).toBe(200);
      const created = await t.post(WEBHOOKS, {
        url: NOWHERE,
        types: ['stock.changed', 'product.upserted'],
        stores: ['W1'],
      });
      expect(created.statusCode, created.body).toBe(201);
      const subscription = created.json();
      expect(Value.Check(CreatedSubscription, subscription)).toBe(true);
      expect(subscription).toMatchObject({
        url: NOWHERE,
        types: ['stock.changed', 'product.upserted'],
        stores: ['W1'],
        status: 'active',
        pending_events: 0,
        last_error: null,
        failing_since: null,
        last_delivered_at: null,
        delivered_events: 0,
        created_by: 'admin',
      });
      expect(subscription.after_sequence).toBeGreaterThan(0);
      expect(subscription.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(Buffer.from(subscription.secret.slice(6), 'base64')).toHaveLength(32);

      const read = await t.get(`${WEBHOOKS}/${subscription.id}`);
      expect(read.statusCode).toBe(200);
      expect(Value.Check(Subscription, read.json())).toBe(true);
      expect(read.body).not.toContain(subscription.secret.slice(6));
      expect(read.json()).not.toHaveProperty('secret');
      const list = await t.get(WEBHOOKS);
      expect(list.json().webhooks.map((w: { id: number }) => w.id)).toContain(subscription.id);
      expect(list.body).not.toContain(subscription.secret.slice(6));
    });

    it('counts the matching events waiting, after its cursor', async () => {
      const all = (await t.post(WEBHOOKS, { url: NOWHERE, types: null })).json();
      const stock = (await t.post(WEBHOOKS, { url: NOWHERE, types: ['stock.changed'] })).json();
      expect(
        (await t.post(`${API}/products`, { products: [productInput('WP2'), productInput('WP3')] })).statusCode,
      ).toBe(200);
      // PostgreSQL numbers committed events within ~100 ms: read until they are counted.
      let pending = 0;
      for (let i = 0; i < 100 && pending < 2; i++) {
        pending = (await t.get(`${WEBHOOKS}/${all.id}`)).json().pending_events;
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(pending).toBe(2);
      expect((await t.get(`${WEBHOOKS}/${stock.id}`)).json().pending_events).toBe(0);
    });

    it('keeps a given secret and the filters as given, without repeats', async () => {
      const secret = secretOf(24);
      const created = await t.post(WEBHOOKS, {
        url: NOWHERE,
        secret,
        types: ['store.upserted', 'store.upserted'],
        stores: ['W2', 'W2', 'W1'],
      });
      expect(created.statusCode, created.body).toBe(201);
      expect(created.json()).toMatchObject({ secret, types: ['store.upserted'], stores: ['W2', 'W1'] });
      expect((await t.post(WEBHOOKS, { url: NOWHERE, secret: secretOf(64) })).statusCode).toBe(201);
    });

    it('refuses bad input field by field: 400 naming each path, 422 for unknown stores, never a 500', async () => {
      const cases: Array<[unknown, number, string[]]> = [
        [{}, 400, ['url']],
        [{ url: 42 }, 400, ['url']],
        [{ url: '' }, 400, ['url']],
        [{ url: 'not a url' }, 400, ['url']],
        [{ url: 'ftp://127.0.0.1/hook' }, 400, ['url']],
        [{ url: 'file:///etc/passwd' }, 400, ['url']],
        [{ url: 'http://user:pw@127.0.0.1/hook' }, 400, ['url']],
        [{ url: `http://127.0.0.1/${'x'.repeat(2100)}` }, 400, ['url']],
        [{ url: NOWHERE, types: [] }, 400, ['types']],
        [{ url: NOWHERE, types: 'stock.changed' }, 400, ['types']],
        [{ url: NOWHERE, types: ['stock.changed', 'stock.nope'] }, 400, ['types[1]']],
        [{ url: NOWHERE, types: [7] }, 400, ['types[0]']],
        [{ url: NOWHERE, stores: [] }, 400, ['stores']],
        [{ url: NOWHERE, stores: [{}] }, 400, ['stores[0]']],
        [{ url: NOWHERE, stores: ['W1', 'NOPE'] }, 422, ['stores[1]']],
        [{ url: NOWHERE, secret: 'plain-text-secret' }, 400, ['secret']],
        [{ url: NOWHERE, secret: secretOf(16) }, 400, ['secret']],
        [{ url: NOWHERE, secret: secretOf(65) }, 400, ['secret']],
        [{ url: NOWHERE, secret: 'whsec_not*base64*at*all*not*base64*at*all*' }, 400, ['secret']],
        [{ url: NOWHERE, secret: 'whsec_' }, 400, ['secret']],
        [{ url: NOWHERE, secret: 12 }, 400, ['secret']],
        // Every problem the request alone shows, at once.
        [{ url: 'gopher://x', types: ['nope'], secret: 'x' }, 400, ['url', 'types[0]', 'secret']],
      ];
      for (const [body, status, fields] of cases) {
        const response = await t.post(WEBHOOKS, body);
        expect(response.statusCode, `${JSON.stringify(body).slice(0, 100)} → ${response.body}`).toBe(status);
        expect(response.json().code).toBe(status === 400 ? 'VALIDATION_FAILED' : 'UNPROCESSABLE');
        // Each failing field by path; a nullable list may also say it is not null (`types`).
        const named = paths(response.json());
        expect(named, JSON.stringify(body).slice(0, 100)).toEqual(expect.arrayContaining(fields));
        expect(
          named.filter((path) => !fields.some((field) => field.startsWith(path))),
          JSON.stringify(body).slice(0, 100),
        ).toEqual([]);
      }
      expect(
        (
          await t.request({
            method: 'POST',
            url: WEBHOOKS,
            payload: '{"url":',
            headers: { 'content-type': 'application/json' },
          })
        ).statusCode,
      ).toBe(400);
      expect((await t.get(`${WEBHOOKS}/abc`)).statusCode).toBe(400);
      expect((await t.get(`${WEBHOOKS}/0`)).statusCode).toBe(400);
    });

    it('refuses private, loopback, link-local and unique-local targets unless WEBHOOKS_ALLOW_PRIVATE is set', async () => {
      for (const url of [
        'http://10.1.2.3/hook',
        'http://192.168.1.10/hook',
        'http://172.16.0.1/hook',
        'http://169.254.169.254/latest/meta-data',
        'http://127.0.0.1:8080/hook',
        'http://127.1.2.3/hook',
        'http://0.0.0.0/hook',
        'http://[::1]/hook',
        'http://[fc00::1]/hook',
        'http://[fe80::1]/hook',
        'http://[::ffff:10.0.0.1]/hook',
        'http://100.64.0.1/hook',
        'http://224.0.0.1/hook',
        'http://2130706433/hook',
        'http://localhost:8080/hook',
      ]) {
        const response = await strict.post(WEBHOOKS, { url });
        expect(response.statusCode, url).toBe(400);
        expect(paths(response.json()), url).toEqual(['url']);
      }
      expect((await strict.get(WEBHOOKS)).json().webhooks).toEqual([]);
      // Even when allowed, no receiver lives at an unspecified or multicast address.
      expect((await t.post(WEBHOOKS, { url: 'http://0.0.0.0/hook' })).statusCode).toBe(400);
      expect((await t.post(WEBHOOKS, { url: 'http://[ff02::1]/hook' })).statusCode).toBe(400);
      expect((await t.post(WEBHOOKS, { url: 'http://localhost:9/hook' })).statusCode).toBe(201);
    });

    it('makes one subscription for a repeated Idempotency-Key, answering the first answer again', async () => {
      const post = () =>
        t.request({
          method: 'POST',
          url: WEBHOOKS,
          payload: { url: NOWHERE, types: ['store.deleted'] },
          headers: { 'idempotency-key': 'webhook-once' },
        });
      const first = await post();
      expect(first.statusCode, first.body).toBe(201);
      const again = await post();
      expect(again.statusCode).toBe(201);
      expect(again.json()).toEqual(first.json());
      const made = (await t.get(WEBHOOKS))
        .json()
        .webhooks.filter((w: { types: string[] | null }) => w.types?.[0] === 'store.deleted');
      expect(made).toHaveLength(1);
    });

    it('removes a subscription, resumes one, and answers 404 for one that does not exist', async () => {
      const { id } = (await t.post(WEBHOOKS, { url: NOWHERE })).json();
      const resumed = await t.post(`${WEBHOOKS}/${id}/resume`, {});
      expect(resumed.statusCode).toBe(200);
      expect(resumed.json()).toMatchObject({ id, status: 'active', failing_since: null });
      const removed = await t.del(`${WEBHOOKS}/${id}`);
      expect(removed.statusCode).toBe(200);
      expect(removed.json()).toMatchObject({ success: true });
      for (const response of [
        await t.get(`${WEBHOOKS}/${id}`),
        await t.del(`${WEBHOOKS}/${id}`),
        await t.post(`${WEBHOOKS}/${id}/resume`, {}),
      ]) {
        expect(response.statusCode).toBe(404);
        expect(response.json()).toMatchObject({ success: false, code: 'NOT_FOUND' });
      }
    });

    it('admits admin and integration tokens only, reads included', async () => {
      const integration = await t.token('integration');
      const created = await t.post(WEBHOOKS, { url: NOWHERE }, integration);
      expect(created.statusCode).toBe(201);
      expect(created.json().created_by).toMatch(/^integration-/);
      const id = created.json().id;
      expect((await t.get(WEBHOOKS, integration)).statusCode).toBe(200);
      expect((await t.get(`${WEBHOOKS}/${id}`, integration)).statusCode).toBe(200);
      expect((await t.post(`${WEBHOOKS}/${id}/resume`, {}, integration)).statusCode).toBe(200);

      for (const token of [await t.token('store', ['W1']), await t.token('read')]) {
        const refused = [
          await t.post(WEBHOOKS, { url: NOWHERE }, token),
          await t.get(WEBHOOKS, token),
          await t.get(`${WEBHOOKS}/${id}`, token),
          await t.post(`${WEBHOOKS}/${id}/resume`, {}, token),
          await t.del(`${WEBHOOKS}/${id}`, undefined, token),
        ];
        for (const response of refused) {
          expect(response.statusCode).toBe(403);
          expect(response.json().code).toBe('FORBIDDEN');
        }
      }
      expect((await t.get(WEBHOOKS, null)).statusCode).toBe(401);
      expect((await t.del(`${WEBHOOKS}/${id}`, undefined, integration)).statusCode).toBe(200);
    });
  });
}
