import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { verifyAll } from '../../src/verify.js';
import { API, buildTestApp, type TestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';
import { locationInput, productInput, reasonCodeInput, storeInput } from '../helpers/factories.js';
import { balancesOf } from '../helpers/stock.js';

// Customer orders against a model (docs/customer-orders.md, PRODUCT §5 order-bound stock, §7),
// over HTTP: random sequences of order creation and re-sends, claims, picks up and down (one or
// two lines per request, from either of two locations, the line's last pick location or its
// preferred one), completion, explicit statuses, rejections (valid and invalid), cancels,
// clearances and stock posts at the locations. The model predicts every answer's status (and
// for the documented conflicts the field it names); after every step the stock of each
// product must be exactly the model's, balance by balance (so free + bound = total), every open
// order's bound stock must be what its lines picked, closed orders bind nothing, statuses and
// picks are the model's; `store-ops verify` is clean at the end of every sequence.

const LOCATIONS = ['L1', 'L2'] as const;
type Loc = (typeof LOCATIONS)[number] | undefined;
type Pool = 1 | 2;
const REJECT_CODE = 21; // type 2
const OTHER_TYPE_CODE = 11; // type 1: not a rejection code
const UNKNOWN_CODE = 9_999;
const PRODUCTS = 3;
/** An index that names no line of any order (a pick of a line the order does not have). */
const NO_LINE = -1;

type RejectVariant = 'ok' | 'wrongType' | 'unknownCode' | 'missingCode' | 'withPicks';
type ResendVariant = 'identical' | 'raise' | 'addLine' | 'removePicked' | 'productOfPicked' | 'poolOfPicked';
/**
 * Where a pick says it comes from: a location of the store, none (the line's last pick location,
 * else its preferred one, else unlocated), one the store does not have (422), or 'best': the
 * location with the most free stock for the line (so that picks succeed often enough).
 */
type PickLoc = Loc | 'L9' | 'best';
interface PickArg {
  line: number;
  quantity: number;
  location: PickLoc;
  pool: Pool | undefined;
}
/** Which order a step is about: mostly an open one (when there is one), else any. */
interface OrderRef {
  open: boolean;
  index: number;
}
type Action =
  | { kind: 'create'; lines: Array<{ product: number; quantity: number; pool: Pool; preferred: Loc }> }
  | { kind: 'claim'; order: OrderRef }
  | { kind: 'pick'; order: OrderRef; picks: PickArg[]; duplicate: boolean }
  | { kind: 'complete'; order: OrderRef }
  | { kind: 'status'; order: OrderRef; status: 1 | 2 | 3 | 4 | 5 | 6 }
  | { kind: 'reject'; order: OrderRef; variant: RejectVariant }
  | { kind: 'cancel'; order: OrderRef }
  | { kind: 'clear'; order: OrderRef }
  | { kind: 'stock'; product: number; location: Loc; pool: Pool; quantity: number }
  | { kind: 'resend'; order: OrderRef; variant: ResendVariant; product: number; amount: number }
  | { kind: 'foreign'; order: OrderRef; variant: 'put' | 'clear' | 'create' | 'unknownStore' };

const locArb: fc.Arbitrary<Loc> = fc.constantFrom<Loc>('L1', 'L2', undefined);
const poolArb: fc.Arbitrary<Pool> = fc.constantFrom<Pool>(1, 1, 1, 2);
/** Whole quantities mostly, now and then one with decimals (exact to 3, PRODUCT §3). */
const quantityArb = (min: number, max: number) =>
  fc.oneof(
    { arbitrary: fc.integer({ min, max }), weight: 8 },
    { arbitrary: fc.integer({ min: min * 1000, max: max * 1000 }).map((m) => m / 1000), weight: 1 },
  );
const orderArb: fc.Arbitrary<OrderRef> = fc.record({
  open: fc.constantFrom(true, true, true, true, false),
  index: fc.nat({ max: 7 }),
});
const productArb = fc.constantFrom(0, 0, 1, 1, 2);
const pickArb: fc.Arbitrary<PickArg> = fc.record({
  line: fc.oneof({ arbitrary: fc.nat({ max: 3 }), weight: 25 }, { arbitrary: fc.constant(NO_LINE), weight: 1 }),
  quantity: quantityArb(0, 5),
  location: fc.oneof(
    { arbitrary: fc.constantFrom<PickLoc>('best', 'best', 'L1', 'L2', undefined), weight: 40 },
    { arbitrary: fc.constant<PickLoc>('L9'), weight: 1 },
  ),
  pool: fc.oneof(
    { arbitrary: fc.constant(undefined), weight: 6 },
    { arbitrary: fc.constantFrom<Pool>(1, 2), weight: 1 },
  ),
});

const createArb = fc.record({
  kind: fc.constant('create' as const),
  lines: fc.array(
    fc.record({ product: productArb, quantity: fc.integer({ min: 1, max: 5 }), pool: poolArb, preferred: locArb }),
    { minLength: 1, maxLength: 3 },
  ),
});
const stockArb = (quantity: fc.Arbitrary<number>) =>
  fc.record({
    kind: fc.constant('stock' as const),
    product: productArb,
    location: fc.constantFrom<Loc>('L1', 'L2', 'L1', 'L2', undefined),
    pool: poolArb,
    quantity,
  });
/** A step that shrinks to nothing (undefined): a counterexample keeps only the steps that matter. */
const step = (arb: fc.Arbitrary<Action>) => fc.option(arb, { nil: undefined, freq: 30 });
/** How a sequence starts: some stock to pick and an order or two. */
const setupArb = fc
  .tuple(
    fc.array(step(stockArb(quantityArb(6, 15))), { minLength: 2, maxLength: 3 }),
    fc.array(step(createArb), { minLength: 1, maxLength: 3 }),
  )
  .map(([stock, orders]) => [...stock, ...orders]);

const actionArb: fc.Arbitrary<Action> = fc.oneof(
  { weight: 4, arbitrary: createArb },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('claim' as const), order: orderArb }) },
  {
    weight: 14,
    arbitrary: fc.record({
      kind: fc.constant('pick' as const),
      order: orderArb,
      picks: fc.array(pickArb, { minLength: 1, maxLength: 2 }),
      // Now and then the same line twice in one request (400).
      duplicate: fc.integer({ min: 0, max: 14 }).map((n) => n === 14),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('complete' as const), order: orderArb }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('status' as const),
      order: orderArb,
      status: fc.constantFrom<1 | 2 | 3 | 4 | 5 | 6>(1, 2, 3, 4, 1, 2, 3, 4, 5, 6),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('reject' as const),
      order: orderArb,
      variant: fc.constantFrom<RejectVariant>(
        'ok',
        'ok',
        'ok',
        'ok',
        'wrongType',
        'unknownCode',
        'missingCode',
        'withPicks',
      ),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('cancel' as const), order: orderArb }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('foreign' as const),
      order: orderArb,
      variant: fc.constantFrom('put' as const, 'clear' as const, 'create' as const, 'unknownStore' as const),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('clear' as const), order: orderArb }) },
  { weight: 7, arbitrary: stockArb(quantityArb(-3, 12).map((q) => q || 6)) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('resend' as const),
      order: orderArb,
      variant: fc.constantFrom<ResendVariant>(
        'identical',
        'raise',
        'addLine',
        'removePicked',
        'productOfPicked',
        'poolOfPicked',
      ),
      product: productArb,
      amount: fc.integer({ min: 1, max: 3 }),
    }),
  },
);

// ---------------------------------------------------------------- the model

interface LineBody {
  line_number: number;
  product_number: string;
  quantity: number;
  stock_pool: Pool;
  preferred_location_code?: string;
}
interface MLine {
  number: number;
  product: number;
  /** Thousandths. */
  quantity: number;
  pool: number;
  preferred: string | null;
  /** Thousandths bound for the line now (after clearance: what was handed over). */
  picked: number;
  /** Where the line was last picked from (null: unlocated, or never picked). */
  lastLoc: string | null;
}
interface MOrder {
  number: string;
  status: number;
  lines: MLine[];
  /** What the ERP sent last (a re-send starts from it). */
  body: { order_number: string; customer_name: string; lines: LineBody[] };
}
const OPEN = (o: MOrder) => o.status < 5;
const milli = (quantity: number) => Math.round(quantity * 1000);

class Model {
  orders: MOrder[] = [];
  /** Free stock (thousandths) by `${product}|${location or -}|${pool}`. */
  free = new Map<string, number>();
  /** What left the store by clearance, per product (thousandths). */
  handedOver = new Map<number, number>();
  /** Everything posted, per product (thousandths). */
  posted = new Map<number, number>();

  clone(): Model {
    const copy = new Model();
    copy.orders = this.orders.map((o) => ({
      ...o,
      lines: o.lines.map((l) => ({ ...l })),
      body: { ...o.body, lines: o.body.lines.map((l) => ({ ...l })) },
    }));
    copy.free = new Map(this.free);
    copy.handedOver = new Map(this.handedOver);
    copy.posted = new Map(this.posted);
    return copy;
  }

  static freeKey = (product: number, loc: string | null, pool: number) => `${product}|${loc ?? '-'}|${pool}`;
  freeAt(product: number, loc: string | null, pool: number): number {
    return this.free.get(Model.freeKey(product, loc, pool)) ?? 0;
  }
  addFree(product: number, loc: string | null, pool: number, milli: number): void {
    this.free.set(Model.freeKey(product, loc, pool), this.freeAt(product, loc, pool) + milli);
  }

  /** The balances of a product as balancesOf shows them: "location|pool|order" → quantity. */
  balances(product: number): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [key, quantity] of this.free) {
      const [p, loc, pool] = key.split('|');
      if (Number(p) === product) out[`${loc}|${pool}|-`] = quantity;
    }
    for (const order of this.orders.filter(OPEN)) {
      for (const line of order.lines.filter((l) => l.product === product)) {
        const key = `-|${line.pool}|${order.number}`;
        out[key] = (out[key] ?? 0) + line.picked;
      }
    }
    return Object.fromEntries(
      Object.entries(out)
        .filter(([, q]) => q !== 0)
        .map(([key, q]) => [key, q / 1000]),
    );
  }

  total(product: number): number {
    return ((this.posted.get(product) ?? 0) - (this.handedOver.get(product) ?? 0)) / 1000;
  }

  /** Rejection and cancel: every line's bound stock back to where it was last picked, picks to 0. */
  releaseAll(order: MOrder): void {
    for (const line of order.lines) {
      if (line.picked === 0) continue;
      this.addFree(line.product, line.lastLoc, line.pool, line.picked);
      line.picked = 0;
    }
  }

  /** The status after a claim / pick / completion / explicit status: forward only, skips allowed (docs: the life of an order). */
  raiseStatus(order: MOrder, body: { is_claimed?: boolean; is_picked?: boolean; status_id?: number }): void {
    let status = order.status;
    if (body.is_claimed) status = Math.max(status, 2);
    if (order.lines.some((l) => l.picked > 0)) status = Math.max(status, 3);
    if (order.lines.length > 0 && order.lines.every((l) => l.picked >= l.quantity)) status = Math.max(status, 4);
    if (body.is_picked) status = Math.max(status, 4);
    if (body.status_id !== undefined) status = Math.max(status, body.status_id);
    order.status = status;
  }
}

/** What the model says a request must answer: a status, and for errors the paths it may name. */
interface Expectation {
  status: number;
  paths?: string[];
  /** 409 over the free stock: the free quantities the message may state. */
  free?: number[];
  message?: RegExp;
}

// ---------------------------------------------------------------- the test

interface Run {
  t: TestApp;
  store: string;
  /** Another store of the chain: the orders are not its. */
  otherStore: string;
  products: string[];
  prefix: string;
}

for (const dialect of DIALECTS) {
  describe(`customer orders against a model (${dialect.name})`, () => {
    let app: TestApp | undefined;
    /** A run that failed may leave inconsistent data behind: the next run starts on a fresh database. */
    let dirty = true;
    let runs = 0;

    afterAll(async () => {
      await app?.close();
      await dialect.cleanup();
    });

    async function startRun(): Promise<Run> {
      if (dirty || !app) {
        await app?.close();
        app = await buildTestApp(dialect);
        const codes = await app.post(`${API}/reasoncodes`, {
          reason_codes: [
            reasonCodeInput(REJECT_CODE, { reason_code_type: 2 }),
            reasonCodeInput(OTHER_TYPE_CODE, { reason_code_type: 1 }),
          ],
        });
        expect(codes.statusCode, codes.body).toBe(200);
      }
      dirty = true;
      const run = ++runs;
      const store = `M${run}`;
      const products = Array.from({ length: PRODUCTS }, (_, i) => `M${run}-P${i + 1}`);
      const ok = (r: LightMyRequestResponse) => expect(r.statusCode, r.body).toBe(200);
      ok(await app.post(`${API}/stores`, { stores: [storeInput(store), storeInput(`${store}X`)] }));
      ok(
        await app.post(`${API}/stores/${store}/locations`, {
          locations: LOCATIONS.map((code, i) => locationInput(code, { location_order: i + 1 })),
        }),
      );
      ok(await app.post(`${API}/products`, { products: products.map((p) => productInput(p)) }));
      return { t: app, store, otherStore: `${store}X`, products, prefix: `M${run}-O` };
    }

    async function runSequence(actions: Action[]): Promise<void> {
      const run = await startRun();
      const { t, store, products } = run;
      let model = new Model();
      const trace: string[] = [];
      const fail = (step: number, what: string): never => {
        throw new Error(`step ${step}: ${what}\n--- requests so far ---\n${trace.join('\n')}`);
      };
      let created = 0;

      for (const [step, action] of actions.entries()) {
        const next = model.clone();
        const orderOf = (ref: OrderRef): MOrder | undefined => {
          const open = next.orders.filter(OPEN);
          const candidates = ref.open && open.length > 0 ? open : next.orders;
          return candidates.length === 0 ? undefined : candidates[ref.index % candidates.length];
        };
        const orderNumberOf = (ref: OrderRef) => orderOf(ref)?.number ?? `${run.prefix}none`;
        let request: { method: 'POST' | 'PUT'; url: string; body: unknown };
        let expected: Expectation;

        switch (action.kind) {
          case 'create': {
            const number = `${run.prefix}${++created}`;
            const lines: LineBody[] = action.lines.map((l, i) => ({
              line_number: i + 1,
              product_number: products[l.product]!,
              quantity: l.quantity,
              stock_pool: l.pool,
              ...(l.preferred ? { preferred_location_code: l.preferred } : {}),
            }));
            const body = { order_number: number, customer_name: 'Model Customer', lines };
            request = { method: 'POST', url: `${API}/stores/${store}/orders/customerorders`, body: { orders: [body] } };
            next.orders.push({
              number,
              status: 1,
              body,
              lines: action.lines.map((l, i) => ({
                number: i + 1,
                product: l.product,
                quantity: l.quantity * 1000,
                pool: l.pool,
                preferred: l.preferred ?? null,
                picked: 0,
                lastLoc: null,
              })),
            });
            expected = { status: 200, message: /created 1/ };
            break;
          }
          case 'resend': {
            const order = orderOf(action.order);
            if (!order) {
              trace.push(`#${step} (re-send: no order yet, nothing sent)`);
              continue;
            }
            const lines = order.body.lines.map((l) => ({ ...l }));
            const pickedLine = order.lines.find((l) => l.picked !== 0);
            let variant = action.variant;
            if (
              (variant === 'removePicked' || variant === 'productOfPicked' || variant === 'poolOfPicked') &&
              (!pickedLine || !OPEN(order))
            )
              variant = 'raise';
            const sent = lines[action.amount % lines.length]!;
            if (variant === 'raise') sent.quantity += action.amount;
            if (variant === 'addLine') {
              lines.push({
                line_number: Math.max(...lines.map((l) => l.line_number)) + 1,
                product_number: products[action.product]!,
                quantity: action.amount,
                stock_pool: 1,
              });
            }
            if (variant === 'removePicked')
              lines.splice(
                lines.findIndex((l) => l.line_number === pickedLine!.number),
                1,
              );
            const pickedBody = lines.find((l) => l.line_number === pickedLine?.number);
            if (variant === 'productOfPicked')
              pickedBody!.product_number = products[(pickedLine!.product + 1) % PRODUCTS]!;
            if (variant === 'poolOfPicked') pickedBody!.stock_pool = pickedLine!.pool === 1 ? 2 : 1;
            const body = { ...order.body, lines };
            request = { method: 'POST', url: `${API}/stores/${store}/orders/customerorders`, body: { orders: [body] } };
            if (variant === 'identical') expected = { status: 200, message: /unchanged 1/ };
            else if (!OPEN(order)) expected = { status: 409, paths: ['orders[0].order_number'] };
            else if (variant === 'removePicked' || variant === 'productOfPicked' || variant === 'poolOfPicked')
              expected = { status: 409 };
            else {
              expected = { status: 200, message: /updated 1/ };
              order.body = body;
              if (variant === 'raise')
                order.lines.find((l) => l.number === sent.line_number)!.quantity += action.amount * 1000;
              if (variant === 'addLine') {
                const added = lines[lines.length - 1]!;
                order.lines.push({
                  number: added.line_number,
                  product: action.product,
                  quantity: added.quantity * 1000,
                  pool: 1,
                  preferred: null,
                  picked: 0,
                  lastLoc: null,
                });
              }
            }
            break;
          }
          case 'foreign': {
            // The order through another store (or one that does not exist): nothing changes.
            const order = orderOf(action.order);
            if (!order) {
              trace.push(`#${step} (another store: no order yet, nothing sent)`);
              continue;
            }
            const other = action.variant === 'unknownStore' ? 'NO-SUCH-STORE' : run.otherStore;
            if (action.variant === 'create') {
              request = {
                method: 'POST',
                url: `${API}/stores/${other}/orders/customerorders`,
                body: { orders: [order.body] },
              };
              expected = { status: 409, paths: ['orders[0].order_number'] };
            } else if (action.variant === 'clear') {
              request = {
                method: 'POST',
                url: `${API}/customerorders/clearance`,
                body: { store_number: other, order_number: order.number },
              };
              expected = { status: 404 };
            } else {
              request = {
                method: 'PUT',
                url: `${API}/stores/${other}/orders/customerorder`,
                body: { order_number: order.number, is_claimed: true },
              };
              expected = { status: 404 };
            }
            break;
          }
          case 'stock': {
            const entry = {
              product_number: products[action.product]!,
              quantity: action.quantity,
              customer_order_line_number: 0,
              modification_datetime: new Date().toISOString(),
              pool_location: action.pool,
              ...(action.location ? { location_code: action.location } : {}),
            };
            request = {
              method: 'POST',
              url: `${API}/stores/${store}/products/stock/storeproductlogs`,
              body: { storeproductlog: [entry] },
            };
            next.addFree(action.product, action.location ?? null, action.pool, milli(action.quantity));
            next.posted.set(action.product, (next.posted.get(action.product) ?? 0) + milli(action.quantity));
            expected = { status: 200 };
            break;
          }
          case 'clear': {
            const order = orderOf(action.order);
            request = {
              method: 'POST',
              url: `${API}/customerorders/clearance`,
              body: { store_number: store, order_number: orderNumberOf(action.order) },
            };
            if (!order) expected = { status: 404 };
            else if (!OPEN(order)) expected = { status: 409 };
            else {
              for (const line of order.lines)
                next.handedOver.set(line.product, (next.handedOver.get(line.product) ?? 0) + line.picked);
              order.status = 5;
              expected = { status: 200 };
            }
            break;
          }
          default: {
            // The PUT: claim, pick, complete, explicit status, reject, cancel.
            const order = orderOf(action.order);
            const body: Record<string, unknown> = { order_number: orderNumberOf(action.order) };
            if (action.kind === 'claim') body.is_claimed = true;
            if (action.kind === 'complete') body.is_picked = true;
            if (action.kind === 'status') body.status_id = action.status;
            if (action.kind === 'cancel') body.status_id = 7;
            if (action.kind === 'reject') {
              body.is_rejected = true;
              const codes: Record<string, number> = { wrongType: OTHER_TYPE_CODE, unknownCode: UNKNOWN_CODE };
              if (action.variant !== 'missingCode') body.rejection_reason_code = codes[action.variant] ?? REJECT_CODE;
              if (action.variant === 'withPicks') body.lines = [{ line_number: 1, picked_quantity: 1 }];
            }
            // The lines a pick request names: distinct ones of the order (unless `duplicate`), or one it does not have.
            const pickNumbers: number[] = [];
            const picks: PickArg[] = [];
            for (const [i, pick] of (action.kind === 'pick' ? action.picks : []).entries()) {
              if (pick.line === NO_LINE || !order) pickNumbers.push(77 + i);
              else if (i > 0 && action.kind === 'pick' && action.duplicate) pickNumbers.push(pickNumbers[0]!);
              else {
                const others = order.lines.filter((l) => !pickNumbers.includes(l.number));
                if (others.length === 0) continue;
                const line = others[pick.line % others.length]!;
                pickNumbers.push(line.number);
                if (pick.location === 'best') {
                  const free = (loc: string) => next.freeAt(line.product, loc, pick.pool ?? line.pool);
                  picks.push({ ...pick, location: free('L2') > free('L1') ? 'L2' : 'L1' });
                  continue;
                }
              }
              picks.push(pick.location === 'best' ? { ...pick, location: 'L1' } : pick);
            }
            if (action.kind === 'pick') {
              body.lines = picks.map((pick, i) => ({
                line_number: pickNumbers[i]!,
                picked_quantity: pick.quantity,
                ...(pick.location ? { stock_location: pick.location } : {}),
                ...(pick.pool ? { stock_pool: pick.pool } : {}),
              }));
            }
            request = { method: 'PUT', url: `${API}/stores/${store}/orders/customerorder`, body };
            if (new Set(pickNumbers).size !== pickNumbers.length)
              expected = { status: 400, paths: ['lines[1].line_number'] };
            else if (action.kind === 'status' && (action.status === 5 || action.status === 6))
              expected = { status: 400, paths: ['status_id'] };
            else if (action.kind === 'reject' && action.variant === 'missingCode')
              expected = { status: 400, paths: ['rejection_reason_code'] };
            else if (action.kind === 'reject' && action.variant === 'withPicks')
              expected = { status: 400, paths: ['lines'] };
            else if (!order) expected = { status: 404 };
            else if (!OPEN(order)) expected = { status: 409 };
            else if (action.kind === 'status' && action.status < order.status)
              expected = { status: 409, paths: ['status_id'] };
            else if (action.kind === 'reject' && action.variant !== 'ok')
              expected = { status: 422, paths: ['rejection_reason_code'] };
            else if (action.kind === 'reject' || action.kind === 'cancel') {
              next.releaseAll(order);
              order.status = action.kind === 'reject' ? 6 : 7;
              expected = { status: 200 };
            } else if (action.kind === 'pick') expected = applyPicks(next, order, picks, pickNumbers, model);
            else {
              next.raiseStatus(order, body);
              expected = { status: 200 };
            }
          }
        }

        const response = await t.request({ method: request.method, url: request.url, payload: request.body as object });
        trace.push(
          `#${step} ${request.method} ${request.url.replace(API, '')} ${JSON.stringify(request.body)}\n     -> ${response.statusCode} ${response.body}`,
        );
        const json = JSON.parse(response.body) as {
          message?: string;
          errors?: Array<{ path: string; message: string }>;
        };
        if (response.statusCode !== expected.status)
          fail(step, `expected HTTP ${expected.status}, got ${response.statusCode}`);
        const paths = (json.errors ?? []).map((e) => e.path);
        if (expected.paths && !expected.paths.some((p) => paths.includes(p)))
          fail(
            step,
            `expected the error to name one of ${expected.paths.join(', ')}, it names ${paths.join(', ') || 'nothing'}`,
          );
        if (expected.free) {
          const message = json.errors?.find((e) => e.path.endsWith('.picked_quantity'))?.message ?? '';
          if (
            !expected.free.some((free) =>
              new RegExp(`(^|[^0-9.])${String(free).replace('.', '\\.')}([^0-9.]|$)`).test(message),
            )
          ) {
            fail(step, `expected the 409 to state what is free (${expected.free.join(' or ')}), it says '${message}'`);
          }
        }
        if (expected.message && !expected.message.test(json.message ?? ''))
          fail(step, `expected the message to match ${expected.message}, got '${json.message}'`);
        if (expected.status === 200) model = next;

        await checkState(run, model, (what) => fail(step, what));
      }

      const violations = await verifyAll(t.app.ctx.handle);
      if (violations.length > 0) fail(actions.length, `verify: ${JSON.stringify(violations)}`);
      dirty = false;
    }

    /**
     * The picks of one request, on `next` (which becomes the model only on a 200): validation
     * first (unknown line 422, a pool change of a line with bound stock 409), then every move in
     * request order, each pick's source guarded (409 over what is free; nothing of the request binds).
     */
    function applyPicks(next: Model, order: MOrder, picks: PickArg[], numbers: number[], before: Model): Expectation {
      const unknown = [
        ...numbers.flatMap((n, i) => (order.lines.some((l) => l.number === n) ? [] : [`lines[${i}].line_number`])),
        ...picks.flatMap((pick, i) => (pick.location === 'L9' ? [`lines[${i}].stock_location`] : [])),
      ];
      if (unknown.length > 0) return { status: 422, paths: unknown };
      const poolChange = picks.findIndex((pick, i) => {
        const line = order.lines.find((l) => l.number === numbers[i])!;
        return pick.pool !== undefined && pick.pool !== line.pool && line.picked !== 0;
      });
      if (poolChange >= 0) return { status: 409, paths: [`lines[${poolChange}].stock_pool`] };
      for (const [i, pick] of picks.entries()) {
        const line = order.lines.find((l) => l.number === numbers[i])!;
        if (pick.pool !== undefined && pick.pool !== line.pool) {
          // The line's pool changes (nothing is bound for it): what is stored is what an identical re-send must carry.
          line.pool = pick.pool;
          order.body.lines.find((l) => l.line_number === line.number)!.stock_pool = pick.pool;
        }
        const target = milli(pick.quantity);
        const diff = target - line.picked;
        if (diff > 0) {
          const source = (pick.location as string | undefined) ?? line.lastLoc ?? line.preferred;
          const free = next.freeAt(line.product, source, line.pool);
          if (free - diff < 0) {
            // Nothing of the request is bound: `next` is thrown away.
            const atStart = before.freeAt(line.product, source, line.pool);
            return {
              status: 409,
              paths: [`lines[${i}].picked_quantity`],
              free: [Math.max(0, free) / 1000, Math.max(0, atStart) / 1000],
            };
          }
          next.addFree(line.product, source, line.pool, -diff);
          line.lastLoc = source;
        } else if (diff < 0) {
          next.addFree(line.product, (pick.location as string | undefined) ?? line.lastLoc, line.pool, -diff);
        }
        line.picked = target;
      }
      next.raiseStatus(order, {});
      return { status: 200 };
    }

    /** The service's state against the model and the documented invariants. */
    async function checkState(run: Run, model: Model, fail: (what: string) => never): Promise<void> {
      const { t, store, products } = run;
      const page = await t.get(`${API}/stores/${store}/orders/customerorders?page_size=1000`);
      if (page.statusCode !== 200) fail(`order list: ${page.statusCode} ${page.body}`);
      type ListedLine = {
        line_number: number;
        picked_quantity: number;
        quantity: number;
        stock_pool: number;
        product_number: string;
        is_picked: boolean;
      };
      type Listed = {
        order_number: string;
        status_id: number;
        is_active: boolean;
        is_picked: boolean;
        is_rejected: boolean;
        total_lines: number;
        total_quantity: number;
        total_delivery_quantity?: number;
        lines?: ListedLine[];
      };
      const listed = (JSON.parse(page.body) as { list: Listed[] }).list;
      const byNumber = new Map(listed.map((o) => [o.order_number, o]));
      if (listed.length !== model.orders.length)
        fail(`${listed.length} orders listed, the model has ${model.orders.length}`);

      // The orders: statuses and picks are the model's.
      for (const order of model.orders) {
        const got = byNumber.get(order.number);
        if (!got) fail(`order ${order.number} is not listed`);
        // The read model (§2.9): is_active, is_picked, is_rejected follow the status; totals and lines the picks.
        const want = {
          status_id: order.status,
          is_active: OPEN(order),
          is_picked: order.status === 4 || order.status === 5,
          is_rejected: order.status === 6,
          total_lines: order.lines.length,
          total_quantity: order.lines.reduce((sum, l) => sum + l.quantity, 0) / 1000,
          total_delivery_quantity: order.lines.reduce((sum, l) => sum + l.picked, 0) / 1000,
          lines: order.lines.map((l) => ({
            line_number: l.number,
            product_number: products[l.product],
            quantity: l.quantity / 1000,
            picked_quantity: l.picked / 1000,
            is_picked: l.picked >= l.quantity,
            stock_pool: l.pool,
          })),
        };
        const have = {
          status_id: got!.status_id,
          is_active: got!.is_active,
          is_picked: got!.is_picked,
          is_rejected: got!.is_rejected,
          total_lines: got!.total_lines,
          total_quantity: got!.total_quantity,
          total_delivery_quantity: got!.total_delivery_quantity,
          lines: (got!.lines ?? []).map((l) => ({
            line_number: l.line_number,
            product_number: l.product_number,
            quantity: l.quantity,
            picked_quantity: l.picked_quantity,
            is_picked: l.is_picked,
            stock_pool: l.stock_pool,
          })),
        };
        if (JSON.stringify(have) !== JSON.stringify(want))
          fail(`order ${order.number}: expected ${JSON.stringify(want)}, the service lists ${JSON.stringify(have)}`);
      }

      // The stock: every balance is the model's; free + bound = total; the service's own
      // orders bind exactly what their lines picked (open) or nothing (closed).
      for (const [index, product] of products.entries()) {
        const balances = await balancesOf(t.app.ctx.db, product, store);
        const want = model.balances(index);
        const sorted = (r: Record<string, number>) =>
          JSON.stringify(Object.fromEntries(Object.entries(r).sort(([a], [b]) => a.localeCompare(b))));
        if (sorted(balances) !== sorted(want))
          fail(`stock of ${product}: expected ${sorted(want)}, the balances are ${sorted(balances)}`);
        const sum = (filter: (key: string) => boolean) =>
          Object.entries(balances)
            .filter(([k]) => filter(k))
            .reduce((s, [, q]) => s + milli(q), 0);
        const free = sum((k) => k.endsWith('|-'));
        const bound = sum((k) => !k.endsWith('|-'));
        if (free + bound !== Math.round(model.total(index) * 1000))
          fail(`${product}: free ${free / 1000} + bound ${bound / 1000} is not the total ${model.total(index)}`);
        for (const key of Object.keys(balances)) {
          const [loc, , orderKey] = key.split('|');
          if (orderKey !== '-' && loc !== '-') fail(`${product}: order-bound stock at a location (${key})`);
          if (orderKey !== '-' && !byNumber.has(orderKey!))
            fail(`${product}: stock bound to ${orderKey}, which is no order of the store`);
        }
        for (const order of listed) {
          const boundTo = Object.entries(balances).filter(([k]) => k.endsWith(`|${order.order_number}`));
          const expectedBound: Record<string, number> = {};
          if (order.is_active) {
            for (const line of (order.lines ?? []).filter(
              (l) => l.product_number === product && l.picked_quantity !== 0,
            )) {
              const key = `-|${line.stock_pool}|${order.order_number}`;
              expectedBound[key] = Math.round(((expectedBound[key] ?? 0) + line.picked_quantity) * 1000) / 1000;
            }
          }
          if (sorted(Object.fromEntries(boundTo)) !== sorted(expectedBound)) {
            fail(
              `${product} bound to order ${order.order_number} (status ${order.status_id}): ${sorted(Object.fromEntries(boundTo))}, its lines picked ${sorted(expectedBound)}`,
            );
          }
        }
      }
    }

    it("property: every answer is the documented one, and stock, statuses and picks stay the model's after each step", async () => {
      await fc.assert(
        // 20-40 steps: 3-6 of setup, then anything.
        fc.asyncProperty(
          setupArb,
          fc.array(step(actionArb), { minLength: 17, maxLength: 34 }),
          async (setup, steps) => {
            await runSequence([...setup, ...steps].filter((step): step is Action => step !== undefined));
          },
        ),
        { numRuns: dialect.name === 'sqlite' ? 50 : 25 },
      );
    }, 300_000);
  });
}
