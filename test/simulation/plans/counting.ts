import type { Action, CountArg } from '../actions.js';
import {
  BARCODES,
  LOCATIONS,
  PRODUCTS,
  REASONS,
  UNIT_BARCODE,
  UNKNOWN_LOCATION,
  type LocationCode,
  type ProductNo,
  type StoreNo,
  type TokenName,
} from '../chain.js';
import {
  balanceKey,
  MAX_EXACT,
  type ChainModel,
  type CountingAssignment,
  type CountingLine,
  type PendingEntry,
} from '../model.js';
import { resolveQuantity, resolveTime, toNumber } from '../time.js';
import { API, firstOf, pickOther, productName, rangeRefusal, type Plan } from './plan.js';

/**
 * Counting assignments (PRODUCT §10, docs/counting.md; issue 44): created for a store, started
 * (lines fixed with the level expected then), counted by number or barcode (a recount replaces,
 * `add` adds, moments in any order), submitted (each counted line a count at its own moment;
 * beyond the variance limit pending in the review queue; a full count zeroes the rest now) or
 * cancelled (nothing booked); read by every token, blind for store tokens until submitted.
 */

type AssignmentAction = Extract<Action, { kind: 'assignStep' | 'assignCounts' | 'assignRead' }>;

/** An id no assignment has: the path answers 404. */
const UNKNOWN_ID = 999_999;
const LOCATION_ORDER = (location: LocationCode | null) => (location === null ? 0 : LOCATIONS.indexOf(location) + 1);
const PRODUCT_ORDER = (product: string) => PRODUCTS.indexOf(product as ProductNo);

/** The assignment an action names (mostly one of the latest), and the path it sends. */
function target(model: ChainModel, action: AssignmentAction) {
  const all = model.assignments;
  // Before any assignment exists, only an unknown id is worth a request.
  if (all.length === 0 && action.target !== 'unknown') return undefined;
  const step = action.kind === 'assignStep' ? action.step : action.kind === 'assignCounts' ? 'count' : undefined;
  const fitting = step && action.fitting ? all.filter((a) => ALLOWED[step].includes(a.status)) : [];
  const pool = fitting.length > 0 ? fitting : all;
  const chosen = pool.length === 0 ? undefined : pool[pool.length - 1 - (action.assignment % pool.length)]!;
  const ownStore: string = chosen?.store ?? 'S1';
  const store = action.target === 'otherStore' ? pickOther(ownStore, action.assignment) : ownStore;
  const id = action.target === 'unknown' || !chosen ? UNKNOWN_ID : chosen.id;
  // The path names the assignment only in its own store: any other store's path answers 404.
  const assignment = chosen && action.target === 'own' ? chosen : undefined;
  return { store, id, assignment, url: `${API}/stores/${store}/countingassignments/${id}` };
}

/** A step not allowed in the status: 409 naming it (docs/counting.md "The flow"). */
const ALLOWED: Record<'start' | 'count' | 'submit' | 'cancel', CountingAssignment['status'][]> = {
  start: ['open'],
  count: ['counting'],
  submit: ['counting'],
  cancel: ['open', 'counting'],
};

const describe = (a: CountingAssignment | undefined) =>
  a ? `#${a.id} ${a.store} (${a.status}${a.blind ? ', blind' : ''}${a.full ? ', full' : ''})` : 'none';

/** What a store token may not see while blind (PRODUCT §10 Blind): until submitted. */
export const hidesFrom = (a: CountingAssignment, who: TokenName) =>
  a.blind && (who === 'storeS1' || who === 'storeS1S2') && ['open', 'counting', 'cancelled'].includes(a.status);

// ---------------------------------------------------------------------------------- create

export function planAssignCreate(model: ChainModel, action: Extract<Action, { kind: 'assignCreate' }>): Plan {
  const { scope: arg } = action;
  const products = 'products' in arg ? arg.products.map(productName) : [];
  const scope: Record<string, unknown> =
    arg.kind === 'whole'
      ? { whole_store: true }
      : arg.kind === 'wholeAndProducts'
        ? { whole_store: true, product_numbers: products }
        : arg.kind === 'empty'
          ? {}
          : {
              ...(products.length > 0 ? { product_numbers: products } : {}),
              ...(arg.kind === 'location' ? { location_codes: [arg.location] } : {}),
            };
  const zeroReason = action.zeroReason === 'none' ? null : action.zeroReason;
  const code = action.code === null ? null : `INV${action.code}`;
  const body: Record<string, unknown> = {
    scope,
    ...(action.blind ? { blind: true } : {}),
    ...(action.full ? { kind: 'full' } : {}),
    ...(zeroReason !== null ? { zero_reason_code: REASONS[zeroReason] } : {}),
    ...(action.limit?.quantity !== undefined ? { max_variance_quantity: action.limit.quantity } : {}),
    ...(action.limit?.percent !== undefined ? { max_variance_percent: action.limit.percent } : {}),
    ...(action.limit?.value !== undefined ? { max_variance_value: action.limit.value } : {}),
    ...(action.extra ? { allow_extra_lines: true } : {}),
    ...(code !== null ? { counting_assignment_code: code } : {}),
  };
  const noScope = arg.kind === 'empty' || (arg.kind === 'products' && products.length === 0);
  const store = action.store;
  const refusal = firstOf(
    model.routeRefusal(action.who, true, store),
    // Rules of the body alone: whole_store with another selector, no scope, full without its zero code.
    (arg.kind === 'wholeAndProducts' || noScope || (action.full && zeroReason === null)) && 400,
    !model.isStore(store) && 404,
    code !== null &&
      model.assignments.some(
        (a) => a.store === store && a.code === code && ['open', 'counting', 'submitted'].includes(a.status),
      ) &&
      409,
    // What the body names must exist: a live count code (type 6), live products, the store's locations.
    ((zeroReason !== null && (zeroReason === 'plain' || model.deletedReasons.has(zeroReason))) ||
      products.some((p) => !model.isLiveProduct(p)) ||
      (arg.kind === 'location' && arg.location === UNKNOWN_LOCATION)) &&
      422,
  );
  const milli = (value: number | undefined) => (value === undefined ? null : BigInt(Math.round(value * 1000)));
  return {
    label: `create counting assignment in ${store} by ${action.who}: ${JSON.stringify(body)}`,
    request: { method: 'POST', url: `${API}/stores/${store}/countingassignments`, body, who: action.who },
    expect: [refusal ?? 201],
    check: (_m, answer) => {
      if (answer.status !== 201) return undefined;
      const made = answer.json as { status: string; blind: boolean; kind: string };
      return made.status === 'open' && made.blind === action.blind && made.kind === (action.full ? 'full' : 'spot')
        ? undefined
        : `the new assignment reads ${JSON.stringify(made).slice(0, 300)}`;
    },
    commit: (m, answer) => {
      const made = answer.json as { counting_assignment_id: number };
      m.assignments.push({
        id: made.counting_assignment_id,
        store: store as StoreNo,
        code,
        scope: {
          ...(products.length > 0 ? { products: [...new Set(products)] } : {}),
          ...(arg.kind === 'location' ? { locations: [arg.location] } : {}),
          ...(arg.kind === 'whole' ? { wholeStore: true } : {}),
        },
        blind: action.blind,
        full: action.full,
        zeroReason,
        limits: {
          quantity: milli(action.limit?.quantity),
          percent: milli(action.limit?.percent),
          value: action.limit?.value === undefined ? null : BigInt(Math.round(action.limit.value * 10_000)),
        },
        allowExtra: action.extra,
        status: 'open',
        lines: [],
      });
    },
  };
}

// ----------------------------------------------------------------------------------- start

/**
 * The lines a start fixes (docs/counting.md "Scope and lines"): one per free balance of each
 * store product in scope, with its level now; a store product without a free balance gets one
 * line without location in pool 1; an empty unlocated balance of a product with located ones is
 * left out; with locations, only balances there (and, with locations alone, the store products
 * that have a free balance there).
 */
export function startLines(m: ChainModel, a: CountingAssignment): CountingLine[] {
  const storeProducts = m.storeProductsOf(a.store);
  const free = (product: string) =>
    [...m.balances.keys()]
      .map((key) => key.split('|'))
      .filter(([s, p, , , order]) => s === a.store && p === product && order === '-')
      .map(([, , location, pool]) => ({
        location: location === '-' ? null : (location as LocationCode),
        pool: Number(pool),
      }));
  const at = a.scope.locations;
  const inScope = [...storeProducts].filter((product) => {
    if (a.scope.wholeStore) return true;
    if (a.scope.products) return a.scope.products.includes(product) && m.isLiveProduct(product);
    return free(product).some((b) => b.location !== null && at!.includes(b.location));
  });
  const lines: CountingLine[] = [];
  for (const product of inScope) {
    const own = free(product).map((b) => ({
      ...b,
      level: m.level(balanceKey(a.store, product, b.location, b.pool, null)),
    }));
    let kept = own;
    if (at !== undefined) kept = own.filter((b) => b.location !== null && at.includes(b.location));
    else if (own.length === 0) kept = [{ location: null, pool: 1, level: 0n }];
    else if (own.some((b) => b.location !== null)) kept = own.filter((b) => !(b.location === null && b.level === 0n));
    for (const b of kept)
      lines.push({
        product,
        location: b.location,
        pool: b.pool,
        expected: b.level,
        counted: null,
        countedAt: null,
        extra: false,
        status: 'not_counted',
      });
  }
  return lines.sort(
    (x, y) =>
      PRODUCT_ORDER(x.product) - PRODUCT_ORDER(y.product) ||
      LOCATION_ORDER(x.location) - LOCATION_ORDER(y.location) ||
      x.pool - y.pool,
  );
}

/** Start, submit or cancel. */
export function planAssignStep(
  model: ChainModel,
  action: Extract<Action, { kind: 'assignStep' }>,
  now: number,
): Plan | undefined {
  const named = target(model, action);
  if (!named) return undefined;
  const { store, assignment: a, url } = named;
  const common = [
    model.routeRefusal(action.who, true, store),
    !model.isStore(store) && 404,
    !a && 404,
    a && !ALLOWED[action.step === 'start' ? 'start' : action.step].includes(a.status) && 409,
  ];
  const label = `${action.step} counting assignment ${describe(a)} on ${url.split('/stores/')[1]} by ${action.who}`;
  const request = { method: 'POST' as const, url: `${url}/${action.step}`, who: action.who };
  if (action.step === 'cancel')
    return {
      label,
      request,
      expect: [firstOf(...common) ?? 200],
      commit: (m) => {
        m.assignments.find((x) => x.id === a!.id)!.status = 'cancelled';
      },
    };
  if (action.step === 'start') {
    const lines = a ? startLines(model, a) : [];
    // One counting assignment holds a product at a time: a start over a held one is a 409 naming it.
    const held = a && lines.some((l) => model.claimOf(a.store, l.product) !== undefined);
    return {
      label: `${label}: ${lines.length} lines`,
      request,
      expect: [firstOf(...common, held && 409) ?? 200],
      check: (_m, answer) => {
        if (answer.status !== 200) return undefined;
        const { status, progress } = answer.json as { status: string; progress: { lines_total: number } };
        return status === 'counting' && progress.lines_total === lines.length
          ? undefined
          : `the start answered ${status} with ${progress.lines_total} lines, the model ${lines.length}: ${lines.map(lineName).join(' ')}`;
      },
      commit: (m) => {
        const stored = m.assignments.find((x) => x.id === a!.id)!;
        stored.lines = startLines(m, stored);
        stored.status = 'counting';
      },
    };
  }
  return planSubmit(model, a, common, label, request, now);
}

const lineName = (l: CountingLine) => `${l.product}@${l.location ?? '-'}/${l.pool}`;

/** Beyond the limit (docs/counting.md "Variance limit"): against the level at the count's moment. */
function beyondLimit(counted: bigint, level: bigint, limits: CountingAssignment['limits']): boolean {
  const variance = counted - level;
  if (variance === 0n) return false;
  const magnitude = variance < 0n ? -variance : variance;
  if (limits.quantity !== null && magnitude > limits.quantity) return true;
  // The chain's products have no purchase price: a value limit never binds.
  if (limits.percent !== null) {
    if (level === 0n) return true;
    const base = level < 0n ? -level : level;
    if (magnitude * 100_000n > limits.percent * base) return true;
  }
  return false;
}

/** What a submission books, in its booking order (by moment, then line). */
function submission(m: ChainModel, a: CountingAssignment, now: number) {
  return a.lines
    .map((line, index) => ({ line, index }))
    .filter(({ line }) => line.counted !== null || a.full)
    .map(({ line, index }) => {
      const at = line.countedAt ?? now;
      const zeroed = line.counted === null;
      const counted = line.counted ?? 0n;
      const key = balanceKey(a.store, line.product, line.location, line.pool, null);
      const pending = beyondLimit(counted, m.levelAt(key, at), a.limits) || (zeroed && a.zeroReason === 'countReview');
      return { index, at, zeroed, counted, key, pending };
    })
    .sort((x, y) => x.at - y.at || x.index - y.index);
}

function planSubmit(
  model: ChainModel,
  a: CountingAssignment | undefined,
  common: Array<number | null | false | undefined>,
  label: string,
  request: Plan['request'],
  now: number,
): Plan {
  const booking = a && a.status === 'counting' ? submission(model, a, now) : [];
  const effects = (m: ChainModel) =>
    booking.flatMap((b) => {
      if (b.pending) return [];
      m.book(b.key, b.at, b.counted, true);
      return [b.key];
    });
  const refusal = firstOf(
    ...common,
    // A full count's zero code flushed since: nothing to zero with.
    a?.full && a.zeroReason !== null && model.deletedReasons.has(a.zeroReason) && 422,
    booking.some((b) => model.isArchived(b.at)) && 422,
    rangeRefusal(model, effects),
  );
  return {
    label: `${label}: books ${booking.map((b) => `${lineName(a!.lines[b.index]!)}=${toNumber(b.counted)}${b.pending ? ' (pending)' : ''}`).join(', ')}`,
    request,
    expect: [refusal ?? 200],
    check: (_m, answer) => {
      if (answer.status !== 200) return undefined;
      const ids = (answer.json as { data: number[] }).data;
      return ids.length === booking.length
        ? undefined
        : `the submission booked ${ids.length} entries, the model ${booking.length}`;
    },
    commit: (m, answer) => {
      const ids = (answer.json as { data: number[] }).data;
      const stored = m.assignments.find((x) => x.id === a!.id)!;
      booking.forEach((b, order) => {
        const line = stored.lines[b.index]!;
        line.counted = b.counted;
        line.countedAt = b.at;
        line.entryId = ids[order]!;
        line.status = b.pending ? 'pending' : 'booked';
        if (!b.pending) m.book(b.key, b.at, b.counted, true);
        else
          m.pending.push({
            id: ids[order]!,
            store: stored.store,
            key: b.key,
            at: b.at,
            milli: b.counted,
            order: null,
            state: 'pending',
            count: true,
            assignment: stored.id,
          });
      });
      stored.status = booking.some((b) => b.pending) ? 'submitted' : 'closed';
    },
  };
}

/** A review decided one of an assignment's pending entries: its line, and the assignment closed with its last one. */
export function reviewedAssignmentEntry(m: ChainModel, entry: PendingEntry, approve: boolean): void {
  if (entry.assignment === undefined) return;
  const a = m.assignments.find((x) => x.id === entry.assignment)!;
  const line = a.lines.find((l) => l.entryId === entry.id);
  if (line) line.status = approve ? 'approved' : 'rejected';
  if (a.status === 'submitted' && !m.pending.some((p) => p.assignment === a.id && p.state === 'pending'))
    a.status = 'closed';
}

// ---------------------------------------------------------------------------------- counts

interface PlannedCount {
  body: Record<string, unknown>;
  /** null: the time rule refuses it (400). */
  at: number | null;
  product: string;
  location: string | null;
  pool: number;
  /** Items counted, in thousandths (a unit barcode counts its unit each). */
  items: bigint;
  add: boolean;
  /** Unknown product, barcode of no live product, unknown location: 422 naming the field. */
  unknown: boolean;
  describe: string;
}

function plannedCount(model: ChainModel, a: CountingAssignment | undefined, store: string, arg: CountArg, now: number) {
  let product: string;
  let location: string | null;
  let pool = arg.pool;
  const line =
    a && a.lines.length > 0 && arg.target.kind === 'line' ? a.lines[arg.target.index % a.lines.length] : undefined;
  if (line) {
    product = line.product;
    location = line.location;
    pool ??= line.pool;
  } else {
    const any = arg.target.kind === 'any' ? arg.target : { product: 0, location: null };
    product = productName(any.product);
    location = any.location;
  }
  const time = resolveTime(arg.time, now);
  const { value, milli } = resolveQuantity(arg.quantity);
  const unit = arg.by === 'unit' && product === UNIT_BARCODE.product;
  const barcode =
    arg.by === 'number'
      ? undefined
      : product in BARCODES
        ? unit
          ? UNIT_BARCODE.barcode
          : BARCODES[product as ProductNo]
        : '0000000000000';
  const effectivePool =
    pool ??
    (location === null || location === UNKNOWN_LOCATION ? 1 : model.defaultPool(store, location as LocationCode));
  return {
    body: {
      ...(barcode === undefined ? { product_number: product } : { barcode }),
      ...(location !== null ? { location_code: location } : {}),
      ...(pool !== undefined ? { pool } : {}),
      counted_quantity: Math.abs(value),
      counted_at: time.text,
      ...(arg.add ? { mode: 'add' } : {}),
    },
    at: time.at,
    product,
    location,
    pool: effectivePool,
    items: (milli < 0n ? -milli : milli) * (unit ? BigInt(UNIT_BARCODE.items) : 1n),
    add: arg.add,
    unknown: !model.isLiveProduct(product) || location === UNKNOWN_LOCATION,
    describe: `${barcode ?? product}@${location ?? '-'}/${effectivePool} ${arg.add ? '+' : '='}${Math.abs(value)} at ${time.text}`,
  } satisfies PlannedCount;
}

/**
 * The counts applied in order to a copy of the lines (docs/counting.md "Counting"): extra lines
 * made first (their expected level the balance's at the count's moment), then each count
 * replaces its line's count or, with `add`, adds to it (the moment the later of the two).
 * Returns the refusal or the lines after.
 */
function applyCounts(m: ChainModel, a: CountingAssignment, counts: PlannedCount[]) {
  const lines = a.lines.map((l) => ({ ...l }));
  const find = (c: PlannedCount) =>
    lines.findIndex((l) => l.product === c.product && l.location === c.location && l.pool === c.pool);
  const outside = counts.filter((c) => find(c) < 0);
  if (outside.length > 0) {
    if (!a.allowExtra) return { refusal: 422 as const };
    // An extra line claims its product like a start does.
    if (outside.some((c) => m.claimOf(a.store, c.product) !== undefined && m.claimOf(a.store, c.product) !== a))
      return { refusal: 409 as const };
    for (const c of outside)
      if (find(c) < 0)
        lines.push({
          product: c.product as ProductNo,
          location: c.location as LocationCode | null,
          pool: c.pool,
          expected: m.levelAt(balanceKey(a.store, c.product, c.location, c.pool, null), c.at!),
          counted: null,
          countedAt: null,
          extra: true,
          status: 'not_counted',
        });
  }
  for (const c of counts) {
    const line = lines[find(c)]!;
    if (c.add && line.counted !== null) {
      line.counted += c.items;
      line.countedAt = Math.max(line.countedAt!, c.at!);
    } else {
      line.counted = c.items;
      line.countedAt = c.at!;
    }
    if (line.counted > MAX_EXACT) return { refusal: 422 as const };
    line.status = 'counted';
  }
  return { refusal: null, lines };
}

export function planAssignCounts(
  model: ChainModel,
  action: Extract<Action, { kind: 'assignCounts' }>,
  now: number,
): Plan | undefined {
  // Counts meant for a counting assignment while none is counting start an open one instead (flows get somewhere).
  if (
    action.fitting &&
    !model.assignments.some((x) => x.status === 'counting') &&
    model.assignments.some((x) => x.status === 'open')
  )
    return planAssignStep(model, { ...action, kind: 'assignStep', step: 'start' }, now);
  const named = target(model, action);
  if (!named) return undefined;
  const { store, assignment: a, url } = named;
  const counts = action.counts.map((c) => plannedCount(model, a, store, c, now));
  const counting = a !== undefined && a.status === 'counting';
  const applied =
    counting && !counts.some((c) => c.unknown || c.at === null || c.items > MAX_EXACT)
      ? applyCounts(model, a, counts)
      : undefined;
  const refusal = firstOf(
    model.routeRefusal(action.who, true, store),
    counts.some((c) => c.at === null) && 400,
    !model.isStore(store) && 404,
    !a && 404,
    !counting && 409,
    counts.some((c) => c.unknown || c.items > MAX_EXACT) && 422,
    applied?.refusal,
  );
  return {
    label: `counts for ${describe(a)} on ${url.split('/stores/')[1]} by ${action.who}: ${counts.map((c) => c.describe).join('; ')}`,
    request: { method: 'POST', url: `${url}/counts`, body: { counts: counts.map((c) => c.body) }, who: action.who },
    expect: [refusal ?? 200],
    commit: (m) => {
      const stored = m.assignments.find((x) => x.id === a!.id)!;
      stored.lines = applied!.lines!;
    },
  };
}

// ----------------------------------------------------------------------------------- reads

interface ReadLine {
  product_number: string;
  location_code: string | null;
  pool: number;
  expected_quantity?: number;
  counted_quantity: number | null;
  variance_quantity?: number | null;
  status: string;
  is_extra: boolean;
}

/** The progress the model says (docs/counting.md "Progress"). */
function progressOf(a: CountingAssignment) {
  const counted = a.lines.filter((l) => l.counted !== null);
  return {
    lines_total: a.lines.length,
    lines_counted: counted.length,
    lines_remaining: a.lines.length - counted.length,
    lines_pending: a.lines.filter((l) => l.status === 'pending').length,
    variance: counted.reduce((sum, l) => sum + (l.counted! - l.expected), 0n),
  };
}

/** A figure the service keeps exact is read as the model's (large sums only where a double holds them). */
const sameQuantity = (shown: number | null | undefined, milli: bigint) =>
  typeof shown === 'number' && (shown === toNumber(milli) || milli > 2n ** 52n || milli < -(2n ** 52n));

function checkAssignment(a: CountingAssignment, who: TokenName, json: unknown): string | undefined {
  const shown = json as {
    counting_assignment_id: number;
    status: string;
    progress: Record<string, number | undefined>;
  };
  const want = progressOf(a);
  const p = shown.progress;
  const problems: string[] = [];
  if (shown.status !== a.status) problems.push(`status ${shown.status}, the model ${a.status}`);
  for (const field of ['lines_total', 'lines_counted', 'lines_remaining', 'lines_pending'] as const)
    if (p[field] !== want[field]) problems.push(`${field} ${p[field]}, the model ${want[field]}`);
  const hidden = hidesFrom(a, who);
  if (hidden && ('variance_quantity' in p || 'variance_value' in p))
    problems.push('the variance is shown to a store token while blind');
  if (!hidden && !sameQuantity(p.variance_quantity, want.variance))
    problems.push(`variance_quantity ${p.variance_quantity}, the model ${toNumber(want.variance)}`);
  if (!hidden && p.variance_value !== 0) problems.push(`variance_value ${p.variance_value} (no product has a price)`);
  return problems.length === 0 ? undefined : `assignment #${a.id} read by ${who}: ${problems.join('; ')}`;
}

function checkLines(a: CountingAssignment, who: TokenName, json: unknown): string | undefined {
  const page = json as { list: ReadLine[]; total_count: number };
  const hidden = hidesFrom(a, who);
  const problems: string[] = [];
  if (page.total_count !== a.lines.length || page.list.length !== a.lines.length)
    problems.push(
      `${page.list.length} lines (total_count ${page.total_count}), the model ${a.lines.map(lineName).join(' ')}`,
    );
  page.list.forEach((row, index) => {
    const line = a.lines[index];
    if (!line) return;
    const name = lineName(line);
    if (row.product_number !== line.product || row.location_code !== line.location || row.pool !== line.pool)
      problems.push(
        `line ${index} is ${row.product_number}@${row.location_code ?? '-'}/${row.pool}, the model ${name}`,
      );
    if (row.status !== line.status) problems.push(`${name} is ${row.status}, the model ${line.status}`);
    if (row.is_extra !== line.extra) problems.push(`${name} is_extra ${row.is_extra}`);
    if (line.counted === null ? row.counted_quantity !== null : !sameQuantity(row.counted_quantity, line.counted))
      problems.push(
        `${name} counted ${row.counted_quantity}, the model ${line.counted === null ? null : toNumber(line.counted)}`,
      );
    if (hidden) {
      if ('expected_quantity' in row || 'variance_quantity' in row)
        problems.push(`${name} shows expected or variance to a store token while blind`);
    } else {
      if (!sameQuantity(row.expected_quantity, line.expected))
        problems.push(`${name} expected ${row.expected_quantity}, the model ${toNumber(line.expected)}`);
      if (
        line.counted === null
          ? row.variance_quantity !== null
          : !sameQuantity(row.variance_quantity, line.counted - line.expected)
      )
        problems.push(`${name} variance ${row.variance_quantity}`);
    }
  });
  return problems.length === 0
    ? undefined
    : `lines of assignment #${a.id} read by ${who}: ${problems.slice(0, 6).join('; ')}`;
}

export function planAssignRead(model: ChainModel, action: Extract<Action, { kind: 'assignRead' }>): Plan | undefined {
  const named = target(model, action);
  if (!named) return undefined;
  const { store, assignment: a, url } = named;
  if (action.what === 'list') {
    const listUrl = `${API}/stores/${store}/countingassignments?page_size=1000`;
    return {
      label: `list counting assignments of ${store} by ${action.who}`,
      request: { method: 'GET', url: listUrl, who: action.who },
      expect: [firstOf(model.routeRefusal(action.who, false, store), !model.isStore(store) && 404) ?? 200],
      check: (m, answer) => {
        if (answer.status !== 200) return undefined;
        const page = answer.json as {
          list: Array<{ counting_assignment_id: number; status: string }>;
          total_count: number;
        };
        const got = page.list.map((x) => `${x.counting_assignment_id}:${x.status}`).join(' ');
        const want = m.assignments
          .filter((x) => x.store === store)
          .map((x) => `${x.id}:${x.status}`)
          .join(' ');
        return got === want && page.total_count === page.list.length
          ? undefined
          : `the assignments of ${store} are ${got} (total_count ${page.total_count}), the model ${want}`;
      },
    };
  }
  const lines = action.what === 'lines';
  return {
    label: `read ${lines ? 'the lines of ' : ''}counting assignment ${describe(a)} on ${url.split('/stores/')[1]} by ${action.who}`,
    request: { method: 'GET', url: `${url}${lines ? '/lines?page_size=1000' : ''}`, who: action.who },
    expect: [firstOf(model.routeRefusal(action.who, false, store), !model.isStore(store) && 404, !a && 404) ?? 200],
    check: (_m, answer) =>
      answer.status !== 200
        ? undefined
        : lines
          ? checkLines(a!, action.who, answer.json)
          : checkAssignment(a!, action.who, answer.json),
  };
}
