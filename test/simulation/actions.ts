import fc from 'fast-check';
import {
  LOCATIONS,
  PRODUCTS,
  STORES,
  TOKENS,
  UNKNOWN_LOCATION,
  UNKNOWN_STORE,
  type LocationCode,
  type ReasonKind,
  type TokenName,
} from './chain.js';
import { DATE_TIME_SPELLINGS } from './time.js';

/**
 * The operations of a simulated sequence (issue 26) and their generators. An action says what
 * a client does in the chain's own terms (indexes into what exists, kinds of time); the step
 * planner (steps.ts) turns it into a request and the model's prediction. Hostile but plausible
 * moves are part of the generators: other stores named in bodies, times in the past, the future
 * and out of range, extreme quantities, deletes in the middle of flows, revoked tokens, re-sends
 * with the same key in another spelling (of the query's names, or of the body's date-times).
 */

/** When an event happened, relative to the server's clock at the request. */
export type TimeKind =
  | { kind: 'past'; minutes: number; ms: number }
  | { kind: 'now' }
  | { kind: 'soon'; seconds: number }
  | { kind: 'future'; minutes: number }
  | { kind: 'far' }
  | { kind: 'year10000' }
  | { kind: 'year0' }
  /** Before the start of last month, `days` and a second earlier: in an archived month on PostgreSQL (issue 40 item 5). */
  | { kind: 'archived'; days: number };

export type QuantityKind = { kind: 'small'; value: number } | { kind: 'extreme'; sign: 1 | -1 } | { kind: 'tiny' };

export interface EntryArg {
  product: number; // index into PRODUCTS, PRODUCTS.length = an unknown product
  location: LocationCode | typeof UNKNOWN_LOCATION | undefined;
  pool: number | undefined;
  reason: ReasonKind | undefined;
  quantity: QuantityKind;
  time: TimeKind;
  /**
   * `customer_order_number` of the entry: none; the number of an order that exists (of any
   * store, any status); or a number the next order import will use (not imported yet).
   */
  order: { kind: 'none' } | { kind: 'existing'; index: number } | { kind: 'upcoming'; ahead: number };
}

export type StorePick = (typeof STORES)[number] | typeof UNKNOWN_STORE;

/** A count of a counting assignment (issue 44): mostly of one of its lines, now and then of anything. */
export interface CountArg {
  target:
    | { kind: 'line'; index: number }
    | { kind: 'any'; product: number; location: LocationCode | typeof UNKNOWN_LOCATION | null };
  pool: number | undefined;
  /** By product number, by the product's barcode, or by P3's unit barcode (6 a scan). */
  by: 'number' | 'barcode' | 'unit';
  quantity: QuantityKind;
  time: TimeKind;
  add: boolean;
}

/** Which assignment a step names: one of the latest (`assignment` back from the newest) on its store's path, on another store's, or an unknown id. */
type AssignmentRef = {
  who: TokenName;
  assignment: number;
  target: 'own' | 'otherStore' | 'unknown';
  /** Mostly among the assignments whose status lets the step through (so that flows get somewhere). */
  fitting: boolean;
};

export type Action =
  | {
      kind: 'log';
      who: TokenName;
      store: StorePick;
      entries: EntryArg[];
      count: boolean;
      key: boolean;
      userSpelling: number;
    }
  | {
      kind: 'move';
      who: TokenName;
      store: StorePick;
      product: number;
      from: LocationCode | null;
      fromPool: number | undefined;
      to: LocationCode | null;
      toPool: number | undefined;
      quantity: number;
      overage: boolean;
      key: boolean;
      /** A side naming a customer order number (PRODUCT §5: bound stock moves while the store has no such order). */
      bound: { side: 'none' | 'from' | 'to'; order: EntryArg['order'] };
    }
  | { kind: 'review'; who: TokenName; pending: number; approve: boolean }
  | {
      kind: 'deliveryCreate';
      who: TokenName;
      store: StorePick;
      crossStore: boolean;
      origin: 'none' | 'other' | 'self' | 'outside';
      originIndex: number;
      lines: Array<{ product: number; quantity: number; pool: number }>;
      key: boolean;
    }
  | { kind: 'deliveryResend'; who: TokenName; delivery: number; variant: 'identical' | 'reorigin'; originIndex: number }
  | {
      kind: 'receive';
      who: TokenName;
      delivery: number;
      lines: Array<{ line: number; quantity: number }>;
      submit: boolean;
      key: boolean;
    }
  | {
      kind: 'orderCreate';
      who: TokenName;
      store: StorePick;
      crossStore: boolean;
      lines: Array<{ product: number; quantity: number }>;
      key: boolean;
    }
  | { kind: 'orderStatus'; who: TokenName; order: number; variant: 'claim' | 'cancel' }
  | {
      kind: 'receiptEntry';
      who: TokenName;
      delivery: number;
      line: number;
      quantity: number;
      location: LocationCode | null;
      pool: number | undefined;
      time: TimeKind;
      key: boolean;
    }
  | { kind: 'pick'; who: TokenName; order: number; line: number; total: number; location: LocationCode | null | 'best' }
  | { kind: 'clear'; who: TokenName; order: number; otherStore: boolean }
  | { kind: 'reject'; who: TokenName; order: number }
  | {
      kind: 'externalCount';
      who: TokenName;
      store: StorePick;
      time: TimeKind;
      lines: Array<{ product: number; unit: boolean; quantity: number }>;
    }
  | { kind: 'deleteProduct'; product: number }
  | { kind: 'restoreProduct'; product: number }
  | { kind: 'revoke'; who: TokenName }
  | { kind: 'resend'; spelling: number }
  /** The last keyed write again with its date-times re-spelt (time.ts respellDateTime; issue 40 item 1). */
  | { kind: 'resendTimes'; spelling: number }
  | { kind: 'read'; who: TokenName; store: number; product: number }
  | { kind: 'surrounding'; who: TokenName; store: number; product: number }
  | { kind: 'list'; who: TokenName; list: 'deliveries' | 'logs' | 'stock' }
  /** The ERP's stock delta pull, a first full one or one from a minute ahead (plans/pull.ts; issue 41). */
  | { kind: 'stockPull'; who: TokenName; from: 'start' | 'future' }
  /** The stock list under the stock filters of issue 43 (plans/stock-filters.ts); `sinceMinutes` from now. */
  | {
      kind: 'stockFiltered';
      who: TokenName;
      store: number | null;
      location: LocationCode | null;
      belowZero: boolean | null;
      sinceMinutes: number | null;
      free: boolean;
    }
  /** A loss photo uploaded or read (plans/photos.ts); `photo` indexes PHOTOS. */
  | { kind: 'photo'; who: TokenName; store: StorePick; photo: number; read: boolean }
  | { kind: 'locations'; who: TokenName; store: number }
  | { kind: 'locationProducts'; who: TokenName; store: number; location: LocationCode; byTag: boolean }
  | { kind: 'receipts'; who: TokenName; store: number | null; type: 1 | 2 }
  | { kind: 'ordersList'; who: TokenName; store: number }
  | { kind: 'storeProducts'; who: TokenName; store: StorePick; product: number; put: boolean }
  | { kind: 'reasonFlush'; drop: 'review' | 'loss' | 'count' }
  | { kind: 'reasonRestore' }
  | {
      kind: 'productListCreate';
      who: TokenName;
      store: StorePick;
      duplicates: boolean;
      lines: Array<{ product: number; quantity: QuantityKind }>;
    }
  | {
      kind: 'productListLines';
      who: TokenName;
      list: number;
      lines: Array<{ product: number; quantity: QuantityKind }>;
    }
  | { kind: 'productListRead'; who: TokenName; store: number }
  | { kind: 'productListDelete'; who: TokenName; list: number; archive: boolean }
  | { kind: 'masterRead'; who: TokenName; which: 'stores' | 'products' | 'categories' | 'reasoncodes' }
  | {
      kind: 'masterWrite';
      who: TokenName;
      which: 'categories' | 'prices' | 'discounts' | 'freefields' | 'attributes';
      product: number;
    }
  | { kind: 'locationUpsert'; who: TokenName; store: StorePick; location: LocationCode; pool: number }
  | { kind: 'unresolved'; who: TokenName; store: number }
  | { kind: 'currentToken'; who: TokenName }
  | { kind: 'storeFlush'; drop: number }
  /** A price re-sent with another store_number (null: chain-wide): the store it left must be told (issue 40). */
  | { kind: 'priceMove'; who: TokenName; price: number; store: StorePick | null }
  | { kind: 'storeRestore' }
  /** Counting assignments (plans/counting.ts; issue 44). */
  | {
      kind: 'assignCreate';
      who: TokenName;
      store: StorePick;
      scope:
        | { kind: 'products'; products: number[] }
        | { kind: 'location'; location: LocationCode | typeof UNKNOWN_LOCATION; products: number[] }
        | { kind: 'whole' }
        | { kind: 'wholeAndProducts'; products: number[] }
        | { kind: 'empty' };
      blind: boolean;
      full: boolean;
      zeroReason: 'count' | 'countReview' | 'plain' | 'none';
      limit: { quantity?: number; percent?: number; value?: number } | null;
      extra: boolean;
      code: number | null;
      key: boolean;
    }
  | (AssignmentRef & { kind: 'assignStep'; step: 'start' | 'submit' | 'cancel'; key: boolean })
  | (AssignmentRef & { kind: 'assignCounts'; counts: CountArg[]; key: boolean })
  | (AssignmentRef & { kind: 'assignRead'; what: 'one' | 'lines' | 'list' });

const weighted = <T>(...pairs: Array<[number, fc.Arbitrary<T>]>) =>
  fc.oneof(...pairs.map(([weight, arbitrary]) => ({ weight, arbitrary })));

/** Mostly the tokens that may write everywhere; store and read tokens often enough to meet their limits. */
const whoArb: fc.Arbitrary<TokenName> = fc.constantFrom<TokenName>(
  'admin',
  'integration',
  'integration',
  'storeS1',
  'storeS1',
  'storeS1S2',
  'storeS1S2',
  'read',
);
const storeArb: fc.Arbitrary<StorePick> = weighted<StorePick>(
  [30, fc.constantFrom('S1', 'S1', 'S2', 'W1')],
  [1, fc.constant(UNKNOWN_STORE)],
);
const productArb = weighted([30, fc.nat({ max: PRODUCTS.length - 1 })], [1, fc.constant(PRODUCTS.length)]);
const locationArb = weighted<LocationCode | typeof UNKNOWN_LOCATION | undefined>(
  [30, fc.constantFrom<LocationCode | undefined>(...LOCATIONS, undefined)],
  [1, fc.constant(UNKNOWN_LOCATION)],
);
const knownLocationArb: fc.Arbitrary<LocationCode | null> = fc.constantFrom<LocationCode | null>('A', 'B', null);

export const timeArb: fc.Arbitrary<TimeKind> = weighted<TimeKind>(
  [
    20,
    fc.record({
      kind: fc.constant('past' as const),
      minutes: fc.integer({ min: 1, max: 3000 }),
      ms: fc.nat({ max: 59_999 }),
    }),
  ],
  [12, fc.constant({ kind: 'now' as const })],
  [2, fc.record({ kind: fc.constant('soon' as const), seconds: fc.integer({ min: 30, max: 240 }) })],
  [2, fc.record({ kind: fc.constant('future' as const), minutes: fc.integer({ min: 6, max: 60 * 24 * 400 }) })],
  [1, fc.constant({ kind: 'far' as const })],
  [1, fc.constantFrom({ kind: 'year10000' as const }, { kind: 'year0' as const })],
);

/** The moment of a stock entry or a count: now and then one dated in a month the ledger archived (runner.ts). */
const entryTimeArb: fc.Arbitrary<TimeKind> = weighted<TimeKind>(
  [10, timeArb],
  [1, fc.record({ kind: fc.constant('archived' as const), days: fc.nat({ max: 60 }) })],
);

const quantityArb: fc.Arbitrary<QuantityKind> = weighted<QuantityKind>(
  [
    30,
    fc
      .oneof(
        fc.integer({ min: -4, max: 12 }),
        fc.integer({ min: -4000, max: 12_000 }).map((m) => m / 1000),
      )
      .map((value) => ({ kind: 'small' as const, value })),
  ],
  [2, fc.record({ kind: fc.constant('extreme' as const), sign: fc.constantFrom<1 | -1>(1, 1, -1) })],
  [1, fc.constant({ kind: 'tiny' as const })],
);

const reasonArb = weighted<ReasonKind | undefined>(
  [12, fc.constant(undefined)],
  [3, fc.constantFrom<ReasonKind>('plain', 'loss', 'gain')],
  [2, fc.constant<ReasonKind>('review')],
  [1, fc.constant<ReasonKind>('unknown')],
);

/** An order number an entry or a move names: of an order that exists, or one the next import will use. */
const orderRefArb: fc.Arbitrary<EntryArg['order']> = weighted<EntryArg['order']>(
  [1, fc.record({ kind: fc.constant('existing' as const), index: fc.nat({ max: 9 }) })],
  [2, fc.record({ kind: fc.constant('upcoming' as const), ahead: fc.nat({ max: 1 }) })],
);

const entryArb: fc.Arbitrary<EntryArg> = fc.record({
  product: productArb,
  location: locationArb,
  pool: weighted<number | undefined>([6, fc.constant(undefined)], [2, fc.constantFrom(1, 2, 3)]),
  reason: reasonArb,
  quantity: quantityArb,
  time: entryTimeArb,
  order: weighted<EntryArg['order']>([12, fc.constant({ kind: 'none' as const })], [3, orderRefArb]),
});

const keyArb = fc.boolean();

// Counting assignments (issue 44).
const assignmentRefArb = {
  who: whoArb,
  // Mostly the newest assignment, so that flows get from start to submission.
  assignment: weighted([6, fc.constant(0)], [3, fc.nat({ max: 3 })]),
  target: weighted<'own' | 'otherStore' | 'unknown'>(
    [14, fc.constant('own' as const)],
    [1, fc.constant('otherStore' as const)],
    [1, fc.constant('unknown' as const)],
  ),
  fitting: weighted([4, fc.constant(true)], [1, fc.constant(false)]),
};
const scopeProductsArb = fc.array(productArb, { minLength: 1, maxLength: 2 });
const countTimeArb: fc.Arbitrary<TimeKind> = weighted<TimeKind>(
  [
    8,
    fc.record({
      kind: fc.constant('past' as const),
      minutes: fc.integer({ min: 1, max: 600 }),
      ms: fc.nat({ max: 59_999 }),
    }),
  ],
  [6, fc.constant({ kind: 'now' as const })],
  [2, fc.record({ kind: fc.constant('soon' as const), seconds: fc.integer({ min: 30, max: 240 }) })],
  [1, fc.record({ kind: fc.constant('future' as const), minutes: fc.integer({ min: 6, max: 600 }) })],
  [1, fc.record({ kind: fc.constant('archived' as const), days: fc.nat({ max: 30 }) })],
);
const countArb: fc.Arbitrary<CountArg> = fc.record({
  target: weighted<CountArg['target']>(
    [5, fc.record({ kind: fc.constant('line' as const), index: fc.nat({ max: 9 }) })],
    [
      1,
      fc.record({
        kind: fc.constant('any' as const),
        product: productArb,
        location: weighted<LocationCode | typeof UNKNOWN_LOCATION | null>(
          [10, fc.constantFrom<LocationCode | null>('A', 'B', null)],
          [1, fc.constant(UNKNOWN_LOCATION)],
        ),
      }),
    ],
  ),
  pool: weighted<number | undefined>([12, fc.constant(undefined)], [1, fc.constantFrom(1, 2, 3)]),
  by: weighted<'number' | 'barcode' | 'unit'>(
    [6, fc.constant('number' as const)],
    [2, fc.constant('barcode' as const)],
    [1, fc.constant('unit' as const)],
  ),
  quantity: weighted<QuantityKind>(
    [
      30,
      fc
        .oneof(
          fc.integer({ min: 0, max: 12 }),
          fc.integer({ min: 0, max: 12_000 }).map((m) => m / 1000),
        )
        .map((value) => ({ kind: 'small' as const, value })),
    ],
    [1, fc.constant({ kind: 'extreme' as const, sign: 1 as const })],
  ),
  time: countTimeArb,
  add: weighted([3, fc.constant(false)], [1, fc.constant(true)]),
});
const assignmentArbs: Array<[number, fc.Arbitrary<Action>]> = [
  [
    10,
    fc.record({
      kind: fc.constant('assignCreate' as const),
      // Mostly tokens that may create in S1 (every one but the read token), so that flows start.
      who: fc.constantFrom<TokenName>('admin', 'integration', 'integration', 'storeS1', 'storeS1', 'storeS1S2', 'read'),
      store: weighted<StorePick>([30, fc.constantFrom('S1', 'S1', 'S1', 'S2', 'W1')], [1, fc.constant(UNKNOWN_STORE)]),
      scope: weighted<Extract<Action, { kind: 'assignCreate' }>['scope']>(
        [4, fc.record({ kind: fc.constant('products' as const), products: scopeProductsArb })],
        [
          3,
          fc.record({
            kind: fc.constant('location' as const),
            location: weighted<LocationCode | typeof UNKNOWN_LOCATION>(
              [10, fc.constantFrom<LocationCode>(...LOCATIONS)],
              [1, fc.constant(UNKNOWN_LOCATION)],
            ),
            products: weighted([2, fc.constant([])], [1, scopeProductsArb]),
          }),
        ],
        [4, fc.constant({ kind: 'whole' as const })],
        [1, fc.record({ kind: fc.constant('wholeAndProducts' as const), products: scopeProductsArb })],
        [1, fc.constant({ kind: 'empty' as const })],
      ),
      blind: fc.boolean(),
      full: weighted([2, fc.constant(false)], [1, fc.constant(true)]),
      zeroReason: weighted<'count' | 'countReview' | 'plain' | 'none'>(
        [6, fc.constant('count' as const)],
        [2, fc.constant('countReview' as const)],
        [1, fc.constant('plain' as const)],
        [2, fc.constant('none' as const)],
      ),
      limit: weighted<{ quantity?: number; percent?: number; value?: number } | null>(
        [3, fc.constant(null)],
        [
          2,
          fc.record(
            {
              quantity: fc.constantFrom(0, 1, 2.5, 5),
              percent: fc.constantFrom(0, 10, 25.5, 50),
              value: fc.constantFrom(0, 100),
            },
            { requiredKeys: [] },
          ),
        ],
      ),
      extra: weighted([3, fc.constant(false)], [1, fc.constant(true)]),
      code: weighted<number | null>([4, fc.constant(null)], [1, fc.nat({ max: 1 })]),
      key: keyArb,
    }),
  ],
  [
    20,
    fc.record({
      kind: fc.constant('assignStep' as const),
      ...assignmentRefArb,
      step: fc.constantFrom<'start' | 'submit' | 'cancel'>('start', 'start', 'start', 'submit', 'submit', 'cancel'),
      key: keyArb,
    }),
  ],
  [
    20,
    fc.record({
      kind: fc.constant('assignCounts' as const),
      ...assignmentRefArb,
      counts: fc.array(countArb, { minLength: 1, maxLength: 4 }),
      key: keyArb,
    }),
  ],
  [
    6,
    fc.record({
      kind: fc.constant('assignRead' as const),
      ...assignmentRefArb,
      what: fc.constantFrom<'one' | 'lines' | 'list'>('one', 'lines', 'lines', 'list'),
    }),
  ],
];

export const actionArb: fc.Arbitrary<Action> = weighted<Action>(
  ...assignmentArbs,
  [
    14,
    fc.record({
      kind: fc.constant('log' as const),
      who: whoArb,
      store: storeArb,
      entries: fc.array(entryArb, { minLength: 1, maxLength: 3 }),
      count: fc.constant(false),
      key: keyArb,
      userSpelling: fc.nat({ max: 2 }),
    }),
  ],
  [
    5,
    fc.record({
      kind: fc.constant('log' as const),
      who: whoArb,
      store: storeArb,
      entries: fc.array(entryArb, { minLength: 1, maxLength: 2 }),
      count: fc.constant(true),
      key: keyArb,
      userSpelling: fc.nat({ max: 2 }),
    }),
  ],
  [
    5,
    fc.record({
      kind: fc.constant('move' as const),
      who: whoArb,
      store: storeArb,
      product: productArb,
      from: knownLocationArb,
      fromPool: fc.option(fc.constantFrom(1, 2), { nil: undefined }),
      to: knownLocationArb,
      toPool: fc.option(fc.constantFrom(1, 2), { nil: undefined }),
      quantity: fc.integer({ min: 1, max: 8 }),
      overage: fc.boolean(),
      key: keyArb,
      bound: weighted<{ side: 'none' | 'from' | 'to'; order: EntryArg['order'] }>(
        [8, fc.constant({ side: 'none' as const, order: { kind: 'none' as const } })],
        [1, fc.record({ side: fc.constantFrom<'from' | 'to'>('from', 'to'), order: orderRefArb })],
      ),
    }),
  ],
  [
    3,
    fc.record({
      kind: fc.constant('review' as const),
      who: whoArb,
      pending: fc.nat({ max: 9 }),
      approve: fc.boolean(),
    }),
  ],
  [
    4,
    fc.record({
      kind: fc.constant('deliveryCreate' as const),
      who: whoArb,
      store: storeArb,
      crossStore: weighted([3, fc.constant(false)], [1, fc.constant(true)]),
      origin: fc.constantFrom<'none' | 'other' | 'self' | 'outside'>(
        'none',
        'other',
        'other',
        'other',
        'self',
        'outside',
      ),
      originIndex: fc.nat({ max: 2 }),
      lines: fc.array(
        fc.record({ product: productArb, quantity: fc.integer({ min: 1, max: 10 }), pool: fc.constantFrom(1, 1, 2) }),
        { minLength: 1, maxLength: 2 },
      ),
      key: keyArb,
    }),
  ],
  [
    2,
    fc.record({
      kind: fc.constant('deliveryResend' as const),
      who: whoArb,
      delivery: fc.nat({ max: 9 }),
      variant: fc.constantFrom<'identical' | 'reorigin'>('identical', 'identical', 'reorigin'),
      originIndex: fc.nat({ max: 2 }),
    }),
  ],
  [
    6,
    fc.record({
      kind: fc.constant('receive' as const),
      who: whoArb,
      delivery: fc.nat({ max: 9 }),
      lines: fc.array(
        fc.record({
          line: fc.nat({ max: 1 }),
          quantity: weighted([8, fc.integer({ min: 1, max: 10 })], [1, fc.integer({ min: -6, max: -1 })]),
        }),
        { minLength: 0, maxLength: 2 },
      ),
      submit: weighted([4, fc.constant(false)], [1, fc.constant(true)]),
      key: keyArb,
    }),
  ],
  [
    4,
    fc.record({
      kind: fc.constant('orderCreate' as const),
      who: whoArb,
      store: storeArb,
      crossStore: weighted([3, fc.constant(false)], [1, fc.constant(true)]),
      lines: fc.array(fc.record({ product: productArb, quantity: fc.integer({ min: 1, max: 5 }) }), {
        minLength: 1,
        maxLength: 2,
      }),
      key: keyArb,
    }),
  ],
  [
    8,
    fc.record({
      kind: fc.constant('pick' as const),
      who: whoArb,
      order: fc.nat({ max: 9 }),
      line: fc.nat({ max: 1 }),
      total: fc.integer({ min: 0, max: 6 }),
      location: fc.constantFrom<LocationCode | null | 'best'>('best', 'best', 'best', 'A', 'B', null),
    }),
  ],
  [
    3,
    fc.record({
      kind: fc.constant('clear' as const),
      who: whoArb,
      order: fc.nat({ max: 9 }),
      otherStore: weighted([8, fc.constant(false)], [1, fc.constant(true)]),
    }),
  ],
  [2, fc.record({ kind: fc.constant('reject' as const), who: whoArb, order: fc.nat({ max: 9 }) })],
  [
    3,
    fc.record({
      kind: fc.constant('externalCount' as const),
      who: whoArb,
      store: storeArb,
      time: entryTimeArb,
      lines: fc.array(
        fc.record({
          product: productArb,
          unit: weighted([5, fc.constant(false)], [1, fc.constant(true)]),
          quantity: fc.integer({ min: 0, max: 20 }),
        }),
        { minLength: 1, maxLength: 3 },
      ),
    }),
  ],
  [
    2,
    fc.record({
      kind: fc.constant('orderStatus' as const),
      who: whoArb,
      order: fc.nat({ max: 9 }),
      variant: fc.constantFrom<'claim' | 'cancel'>('claim', 'claim', 'cancel'),
    }),
  ],
  [
    4,
    fc.record({
      kind: fc.constant('receiptEntry' as const),
      who: whoArb,
      delivery: fc.nat({ max: 9 }),
      line: fc.nat({ max: 1 }),
      quantity: weighted([8, fc.integer({ min: 1, max: 10 })], [1, fc.integer({ min: -6, max: -1 })]),
      location: knownLocationArb,
      pool: fc.option(fc.constantFrom(1, 2), { nil: undefined, freq: 3 }),
      time: timeArb,
      key: keyArb,
    }),
  ],
  [
    2,
    fc.record({
      kind: fc.constant('surrounding' as const),
      who: whoArb,
      store: fc.nat({ max: STORES.length - 1 }),
      product: fc.nat({ max: PRODUCTS.length - 1 }),
    }),
  ],
  [
    3,
    fc.record({
      kind: fc.constant('list' as const),
      who: whoArb,
      list: fc.constantFrom<'deliveries' | 'logs' | 'stock'>('deliveries', 'logs', 'stock'),
    }),
  ],
  [2, fc.record({ kind: fc.constant('locations' as const), who: whoArb, store: fc.nat({ max: STORES.length - 1 }) })],
  [
    2,
    fc.record({
      kind: fc.constant('locationProducts' as const),
      who: whoArb,
      store: fc.nat({ max: STORES.length - 1 }),
      location: fc.constantFrom<LocationCode>(...LOCATIONS),
      byTag: fc.boolean(),
    }),
  ],
  [
    2,
    fc.record({
      kind: fc.constant('receipts' as const),
      who: whoArb,
      store: fc.option(fc.nat({ max: STORES.length - 1 }), { nil: null }),
      type: fc.constantFrom<1 | 2>(1, 2),
    }),
  ],
  [2, fc.record({ kind: fc.constant('ordersList' as const), who: whoArb, store: fc.nat({ max: STORES.length - 1 }) })],
  [
    2,
    fc.record({
      kind: fc.constant('storeProducts' as const),
      who: whoArb,
      store: storeArb,
      product: productArb,
      put: fc.boolean(),
    }),
  ],
  [
    1,
    fc.record({
      kind: fc.constant('reasonFlush' as const),
      drop: fc.constantFrom<'review' | 'loss' | 'count'>('review', 'loss', 'count'),
    }),
  ],
  [1, fc.constant({ kind: 'reasonRestore' as const })],
  [
    2,
    fc.record({
      kind: fc.constant('productListCreate' as const),
      who: whoArb,
      store: storeArb,
      duplicates: fc.boolean(),
      lines: fc.array(
        fc.record({
          product: productArb,
          quantity: quantityArb.map((q) =>
            q.kind === 'small'
              ? { ...q, value: Math.abs(q.value) }
              : q.kind === 'extreme'
                ? { ...q, sign: 1 as const }
                : q,
          ),
        }),
        { maxLength: 3 },
      ),
    }),
  ],
  [
    2,
    fc.record({
      kind: fc.constant('productListLines' as const),
      who: whoArb,
      list: fc.nat({ max: 9 }),
      lines: fc.array(
        fc.record({
          product: productArb,
          quantity: quantityArb.map((q) =>
            q.kind === 'small'
              ? { ...q, value: Math.abs(q.value) }
              : q.kind === 'extreme'
                ? { ...q, sign: 1 as const }
                : q,
          ),
        }),
        { minLength: 1, maxLength: 3 },
      ),
    }),
  ],
  [
    1,
    fc.record({
      kind: fc.constant('productListRead' as const),
      who: whoArb,
      store: fc.nat({ max: STORES.length - 1 }),
    }),
  ],
  [
    1,
    fc.record({
      kind: fc.constant('productListDelete' as const),
      who: whoArb,
      list: fc.nat({ max: 9 }),
      archive: fc.boolean(),
    }),
  ],
  [
    1,
    fc.record({
      kind: fc.constant('masterRead' as const),
      who: whoArb,
      which: fc.constantFrom<'stores' | 'products' | 'categories' | 'reasoncodes'>(
        'stores',
        'products',
        'categories',
        'reasoncodes',
      ),
    }),
  ],
  [
    1,
    fc.record({
      kind: fc.constant('masterWrite' as const),
      who: whoArb,
      which: fc.constantFrom<'categories' | 'prices' | 'discounts' | 'freefields' | 'attributes'>(
        'categories',
        'prices',
        'discounts',
        'freefields',
        'attributes',
      ),
      product: fc.nat({ max: PRODUCTS.length - 1 }),
    }),
  ],
  [
    1,
    fc.record({
      kind: fc.constant('locationUpsert' as const),
      who: whoArb,
      store: storeArb,
      location: fc.constantFrom<LocationCode>(...LOCATIONS),
      pool: fc.constantFrom(1, 2, 3),
    }),
  ],
  [1, fc.record({ kind: fc.constant('unresolved' as const), who: whoArb, store: fc.nat({ max: STORES.length - 1 }) })],
  [1, fc.record({ kind: fc.constant('currentToken' as const), who: whoArb })],
  [
    3,
    fc.record({
      kind: fc.constant('photo' as const),
      who: whoArb,
      store: storeArb,
      // Mostly one photo, so that uploads meet what is stored (200) and reads find it.
      photo: weighted([4, fc.constant(0)], [2, fc.nat({ max: 3 })]),
      read: fc.boolean(),
    }),
  ],
  [1, fc.record({ kind: fc.constant('storeFlush' as const), drop: fc.nat({ max: STORES.length - 1 }) })],
  [
    4,
    fc.record({
      kind: fc.constant('priceMove' as const),
      // Master writes: mostly tokens that may make them, a store token now and then (403).
      who: fc.constantFrom<TokenName>('admin', 'integration', 'integration', 'integration', 'storeS1'),
      price: fc.nat({ max: 1 }),
      store: weighted<StorePick | null>([6, storeArb], [2, fc.constant(null)]),
    }),
  ],
  [1, fc.constant({ kind: 'storeRestore' as const })],
  [1, fc.record({ kind: fc.constant('deleteProduct' as const), product: fc.nat({ max: PRODUCTS.length - 1 }) })],
  [1, fc.record({ kind: fc.constant('restoreProduct' as const), product: fc.nat({ max: PRODUCTS.length - 1 }) })],
  [3, fc.record({ kind: fc.constant('resend' as const), spelling: fc.nat({ max: 3 }) })],
  [3, fc.record({ kind: fc.constant('resendTimes' as const), spelling: fc.nat({ max: DATE_TIME_SPELLINGS - 1 }) })],
  [
    2,
    fc.record({
      kind: fc.constant('stockPull' as const),
      who: whoArb,
      from: weighted<'start' | 'future'>([3, fc.constant('start' as const)], [1, fc.constant('future' as const)]),
    }),
  ],
  [
    2,
    fc.record({
      kind: fc.constant('stockFiltered' as const),
      who: whoArb,
      store: fc.option(fc.nat({ max: STORES.length - 1 }), { nil: null }),
      location: fc.constantFrom<LocationCode | null>(null, ...LOCATIONS),
      belowZero: fc.constantFrom<boolean | null>(null, true, false),
      sinceMinutes: fc.constantFrom<number | null>(null, -1440, 0, 10),
      free: fc.boolean(),
    }),
  ],
  [
    3,
    fc.record({
      kind: fc.constant('read' as const),
      who: whoArb,
      store: fc.nat({ max: STORES.length - 1 }),
      product: fc.nat({ max: PRODUCTS.length - 1 }),
    }),
  ],
);

/** Rare: a token revoked in the middle of a sequence (costs a second: the credential cache). */
export const revokeArb: fc.Arbitrary<Action> = fc.record({
  kind: fc.constant('revoke' as const),
  who: fc.constantFrom<TokenName>('storeS1S2', 'storeS1S2', 'read', 'integration'),
});

/** A sequence: some stock and flows to start from, then anything. Steps shrink to nothing. */
export function sequenceArb(minSteps: number, maxSteps: number): fc.Arbitrary<Action[]> {
  const step = fc.option(weighted<Action>([60, actionArb], [1, revokeArb]), { nil: undefined, freq: 30 });
  return fc
    .array(step, { minLength: minSteps, maxLength: maxSteps })
    .map((steps) => steps.filter((s): s is Action => s !== undefined));
}

export const ALL_TOKENS = TOKENS;
