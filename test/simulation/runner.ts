import type { FastifyInstance } from 'fastify';
import { revokeToken } from '../../src/modules/tokens/service.js';
import { createToken } from '../../src/modules/tokens/service.js';
import { verifyAll } from '../../src/verify.js';
import { addMonths, monthStart } from '../../src/db/months.js';
import { archiveLedgerBefore } from '../../src/ledger/archive.js';
import type { Action } from './actions.js';
import {
  LOCATIONS,
  DEFAULT_POOL,
  PRODUCTS,
  STORES,
  TOKEN_ROLES,
  TOKEN_STORES,
  TOKENS,
  type TokenName,
} from './chain.js';
import { ChainModel } from './model.js';
import { ANOTHER_INSTANT, respellDateTimes } from './time.js';
import { FeedMirrors } from './feeds.js';
import { API, planStep, productRecord, REASON_RECORDS, storeRecord, type Plan, type SequenceContext } from './steps.js';

/**
 * Runs one simulated sequence against a fresh app (issue 26): sets up the chain, then for each
 * action sends the request the planner made, compares the answer's status with the model's,
 * moves the model, and compares every balance of the chain with it. `verify` runs at the end.
 * Throws with the whole trace of the sequence on the first difference.
 */
export class SimulationFailure extends Error {}

export interface Answer {
  status: number;
  json: unknown;
  raw: string;
  headers: Record<string, unknown>;
}

/** Credentials of one sequence: one per token name, revocable through the CLI's own service. */
export async function createSequenceTokens(app: FastifyInstance, run: string): Promise<Record<TokenName, string>> {
  const entries = await Promise.all(
    TOKENS.map(async (name) => {
      const stores = TOKEN_STORES[name];
      const value = await createToken(app.ctx.db, {
        name: `${run}-${name}`,
        role: TOKEN_ROLES[name],
        stores: stores === null ? undefined : [...stores],
        createdBy: 'simulation',
      });
      return [name, value] as const;
    }),
  );
  return Object.fromEntries(entries) as Record<TokenName, string>;
}

/** Answers seen per operation and status (`kind status` → count), for a search's summary. */
export type OutcomeCounts = Map<string, number>;

export async function runSequence(
  app: FastifyInstance,
  actions: readonly Action[],
  run: string,
  outcomes?: OutcomeCounts,
): Promise<{ trace: string[] }> {
  const tokens = await createSequenceTokens(app, run);
  const trace: string[] = [];
  const send = async (request: Plan['request']): Promise<Answer> => {
    const response = await app.inject({
      method: request.method,
      url: request.url,
      headers: { authorization: `Bearer ${tokens[request.who]}`, ...(request.headers ?? {}) },
      ...(request.body !== undefined ? { payload: request.body as object } : {}),
    });
    let json: unknown;
    try {
      json = response.body === '' ? undefined : JSON.parse(response.body);
    } catch {
      json = response.body;
    }
    return { status: response.statusCode, json, raw: response.body, headers: response.headers };
  };
  const fail = (message: string): never => {
    throw new SimulationFailure(`${message}\n  trace (${trace.length} steps):\n    ${trace.join('\n    ')}`);
  };

  await setUpChain(send, fail);
  const model = new ChainModel();
  model.archiveBoundary = await archiveOldMonths(app);
  // Store tokens' feeds against the model (issue 40: a record that moves tells the store it left).
  const feeds = await FeedMirrors.start(app, run);
  const context: SequenceContext = { deliveries: 0, orders: 0, step: 0 };

  for (const action of actions) {
    context.step++;
    if (action.kind === 'revoke') {
      await revokeToken(app.ctx.db, `${run}-${action.who}`);
      // A running server refuses a revoked token within a second (PRODUCT §2): wait it out.
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      model.revokedTokens.add(action.who);
      trace.push(`#${context.step} revoke ${action.who}`);
      continue;
    }
    if (action.kind === 'resend') {
      await resendWithKey(action.spelling, context, model, send, trace, fail);
      continue;
    }
    if (action.kind === 'resendTimes') {
      const status = await resendWithTimes(action.spelling, context, model, send, trace, fail);
      if (status !== undefined)
        outcomes?.set(`resendTimes ${status}`, (outcomes.get(`resendTimes ${status}`) ?? 0) + 1);
      continue;
    }
    const plan = planStep(model, action, context);
    if (!plan) continue;
    const keyed = 'key' in action && action.key;
    if (keyed) plan.request.headers = { ...(plan.request.headers ?? {}), 'idempotency-key': `${run}-k${context.step}` };
    const answer = await send(plan.request);
    // Assignment steps by their step (counts drawn while nothing counts start an assignment: plans/counting.ts).
    const kind = plan.label.startsWith('start counting')
      ? 'assignStart'
      : action.kind === 'assignStep'
        ? `assign${action.step[0]!.toUpperCase()}${action.step.slice(1)}`
        : action.kind;
    const outcome = `${kind} ${answer.status}`;
    outcomes?.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
    trace.push(
      `#${context.step} ${plan.label} -> ${answer.status}${answer.status >= 400 ? ` ${describeError(answer.json)}` : ''}`,
    );
    if (!plan.expect.includes(answer.status))
      fail(
        `step ${context.step}: expected ${plan.expect.join(' or ')}, got ${answer.status}: ${answer.raw.slice(0, 500)}`,
      );
    const problem = plan.check?.(model, answer) ?? (await plan.audit?.(app.ctx.db, answer));
    if (problem) fail(`step ${context.step}: ${problem}`);
    if (answer.status < 300) plan.commit?.(model, answer);
    if (keyed && answer.status < 500 && ![401, 403, 409, 429].includes(answer.status))
      context.lastKeyed = { plan, status: answer.status, body: answer.raw };
    await compareBalances(app, model, fail, context.step);
    if (action.kind === 'priceMove' && answer.status < 300) {
      const moved = await feeds.check(model);
      if (moved) fail(`step ${context.step}: ${moved}`);
    }
  }

  const mirrored = await feeds.check(model);
  if (mirrored) fail(`after the sequence: ${mirrored}`);

  const violations = await verifyAll(app.ctx.handle);
  if (violations.length > 0) fail(`verify after the sequence: ${JSON.stringify(violations.slice(0, 5))}`);
  return { trace };
}

/**
 * Where the ledger archives (PostgreSQL), the months before last are archived before the
 * sequence, as an operator does (`store-ops ledger archive`): entries and counts the generator
 * dates there must be refused naming their line (issue 40 item 5). SQLite keeps every month.
 */
async function archiveOldMonths(app: FastifyInstance): Promise<number | null> {
  if (!app.ctx.handle.dialect.ledgerArchive) return null;
  const now = Date.now();
  const boundary = addMonths(monthStart(now), -1);
  // A new ledger's months start at the current one: made back first, as a migrated chain has them.
  await app.ctx.handle.dialect.ensureLedgerMonths(app.ctx.handle.db, now, addMonths(boundary, -2));
  await archiveLedgerBefore(app.ctx.handle, boundary, 'simulation', now);
  return boundary;
}

function describeError(json: unknown): string {
  if (json === null || typeof json !== 'object') return '';
  const { code, message, errors } = json as { code?: string; message?: string; errors?: Array<{ path: string }> };
  return `${code ?? ''} ${message ?? ''}${errors?.length ? ` [${errors.map((e) => e.path).join(', ')}]` : ''}`.trim();
}

/**
 * The same request again with the same Idempotency-Key, its query spelt another way
 * (PRODUCT §3: one request by meaning): the stored answer comes back and nothing is applied
 * twice. Spelling 3 changes the body: another request under a used key, a 409.
 */
async function resendWithKey(
  spelling: number,
  context: SequenceContext,
  model: ChainModel,
  send: (request: Plan['request']) => Promise<Answer>,
  trace: string[],
  fail: (message: string) => never,
): Promise<void> {
  const last = context.lastKeyed;
  if (!last) return;
  const request = { ...last.plan.request, url: respell(last.plan.request.url, spelling) };
  const altered = spelling === 3 ? alterMeaning(request.body) : undefined;
  const changedBody = altered !== undefined;
  if (altered !== undefined) request.body = altered;
  const answer = await send(request);
  trace.push(
    `#${context.step} re-send with the key of "${last.plan.label}" as ${request.url}${changedBody ? ' (another body)' : ''} -> ${answer.status}`,
  );
  const refusal = model.routeRefusal(request.who, true);
  const expected = refusal ?? (changedBody ? 409 : last.status);
  // A body the schema refuses never reaches the key: changed, it may still be that 400.
  const stillInvalid = changedBody && last.status === 400 && answer.status === 400;
  if (answer.status !== expected && !stillInvalid) {
    fail(
      `step ${context.step}: the re-send answered ${answer.status}, expected ${expected}: ${answer.raw.slice(0, 300)}`,
    );
  }
  // A 400 of the schema is answered afresh (no key was reserved); any other kept answer comes back as it was.
  if (!changedBody && refusal === null && last.status !== 400 && answer.raw !== last.body)
    fail(
      `step ${context.step}: the replayed answer differs: ${answer.raw.slice(0, 300)} vs ${last.body.slice(0, 300)}`,
    );
}

/**
 * The last keyed write again with the same Idempotency-Key and its body's date-times re-spelt
 * (issue 40 item 1; time.ts respellDateTimes): the same instants (`Z` without milliseconds, an
 * offset either side, no zone) are the same request — its stored answer, nothing applied
 * twice (the balances are compared after every step) — and another instant is another
 * request under a used key, a 409. A write without a date-time in its body is left alone.
 */
async function resendWithTimes(
  spelling: number,
  context: SequenceContext,
  model: ChainModel,
  send: (request: Plan['request']) => Promise<Answer>,
  trace: string[],
  fail: (message: string) => never,
): Promise<number | undefined> {
  const last = context.lastKeyed;
  if (!last || last.plan.request.body === undefined) return undefined;
  const { body, count } = respellDateTimes(last.plan.request.body, spelling);
  if (count === 0) return undefined;
  const request = { ...last.plan.request, body };
  const answer = await send(request);
  const another = spelling === ANOTHER_INSTANT;
  trace.push(
    `#${context.step} re-send with the key of "${last.plan.label}", ${count} date-time(s) ${another ? 'moved 1 ms' : `re-spelt (${JSON.stringify(body).match(/"\d{4}-\d{2}-\d{2}T[^"]*"/)?.[0]})`} -> ${answer.status}`,
  );
  const refusal = model.routeRefusal(request.who, true);
  const expected = refusal ?? (another ? 409 : last.status);
  // A body the schema refuses never reaches the key: moved, it may still be that 400.
  const stillInvalid = another && last.status === 400 && answer.status === 400;
  if (answer.status !== expected && !stillInvalid)
    fail(
      `step ${context.step}: the date-time re-send answered ${answer.status}, expected ${expected}: ${answer.raw.slice(0, 300)}`,
    );
  if (!another && refusal === null && last.status !== 400 && answer.raw !== last.body)
    fail(
      `step ${context.step}: the replayed answer differs: ${answer.raw.slice(0, 300)} vs ${last.body.slice(0, 300)}`,
    );
  return answer.status;
}

/**
 * The body with one quantity changed: another request by meaning (an unknown field added would
 * not be: unknown fields are ignored, so that body means the same).
 */
function alterMeaning(body: unknown): unknown {
  if (body === undefined) return undefined;
  const copy = JSON.parse(JSON.stringify(body)) as unknown;
  const visit = (value: unknown): boolean => {
    if (Array.isArray(value)) return value.some(visit);
    if (value === null || typeof value !== 'object') return false;
    const record = value as Record<string, unknown>;
    for (const field of ['quantity', 'received_quantity', 'picked_quantity']) {
      const value = record[field];
      if (typeof value === 'number') {
        // One unit nearer zero where there is room, so the body stays valid (the largest quantity included).
        record[field] = Math.round((value >= 1 ? value - 1 : value + 1) * 1000) / 1000;
        return true;
      }
    }
    return Object.values(record).some(visit);
  };
  return visit(copy) ? copy : undefined;
}

/** The same query with its names in other cases, in another order, with an unknown name added. */
function respell(url: string, spelling: number): string {
  const [path, query] = url.split('?');
  if (!query) return spelling % 2 === 0 ? `${path}?unknown_param=1` : url;
  const pairs = query.split('&').map((pair) => {
    const [name, value] = pair.split('=');
    const spelt = spelling === 0 ? name!.toUpperCase() : spelling === 1 ? name!.toLowerCase() : name!;
    return `${spelt}=${value}`;
  });
  if (spelling === 2) pairs.reverse().push('unknown_param=x');
  return `${path}?${pairs.join('&')}`;
}

/** Every non-zero balance of the chain, as the database holds it, against the model's. */
async function compareBalances(
  app: FastifyInstance,
  model: ChainModel,
  fail: (message: string) => never,
  step: number,
): Promise<void> {
  const rows = await app.ctx.db
    .selectFrom('stock_balances as b')
    .innerJoin('products as p', 'p.id', 'b.product_id')
    .leftJoin('locations as l', 'l.id', 'b.location_id')
    .select(['b.store_number', 'p.product_number', 'l.location_code', 'b.pool', 'b.order_key', 'b.quantity'])
    .execute();
  const stored = new Map<string, bigint>();
  for (const row of rows) {
    const quantity = BigInt(row.quantity as unknown as string | number);
    if (quantity === 0n) continue;
    stored.set(
      `${row.store_number}|${row.product_number}|${row.location_code ?? '-'}|${row.pool}|${row.order_key || '-'}`,
      quantity,
    );
  }
  const expected = model.nonZeroBalances();
  const keys = new Set([...stored.keys(), ...expected.keys()]);
  const differences = [...keys].filter((key) => stored.get(key) !== expected.get(key)).sort();
  if (differences.length > 0) {
    fail(
      `step ${step}: balances differ from the model: ${differences.map((key) => `${key} stored ${stored.get(key) ?? 0n} model ${expected.get(key) ?? 0n}`).join('; ')}`,
    );
  }
}

/** The chain every sequence starts from (chain.ts), set up through the API like an ERP would. */
export async function setUpChain(
  send: (request: Plan['request']) => Promise<Answer>,
  fail: (message: string) => never,
): Promise<void> {
  const steps: Plan['request'][] = [
    {
      method: 'POST',
      url: `${API}/stores`,
      who: 'admin',
      body: { stores: STORES.map(storeRecord) },
    },
    { method: 'POST', url: `${API}/products`, who: 'admin', body: { products: PRODUCTS.map(productRecord) } },
    {
      method: 'POST',
      url: `${API}/reasoncodes`,
      who: 'admin',
      body: { reason_codes: REASON_RECORDS.map(([, record]) => record) },
    },
    ...STORES.map((store) => ({
      method: 'POST' as const,
      url: `${API}/stores/${store}/locations`,
      who: 'admin' as const,
      body: {
        locations: LOCATIONS.map((code, i) => ({
          location_code: code,
          location_order: i + 1,
          ...(code === 'B' ? { default_stock_pool: DEFAULT_POOL[code] } : {}),
        })),
      },
    })),
  ];
  for (const request of steps) {
    const answer = await send(request);
    if (answer.status !== 200) fail(`set-up ${request.url} answered ${answer.status}: ${answer.raw.slice(0, 300)}`);
  }
}
