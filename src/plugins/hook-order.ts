import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import type { DbHandle } from '../db/dialect/types.js';
import { registerAuth } from './auth.js';
import { registerIdempotency } from './idempotency.js';
import { registerListCache } from './list-cache.js';
import { registerMetrics } from './metrics.js';
import { registerRateLimit } from './rate-limit.js';
import { registerReadAfterCheck } from './read-routing.js';
import { registerCaseInsensitiveQuery, registerNulGuard } from './request-parsing.js';

interface RouteHookStep {
  name: string;
  /** The request phases its hooks run in (Fastify runs the phases in its own lifecycle order). */
  phases: string;
  register(app: FastifyInstance, deps: { config: Config; handle: DbHandle }): void | Promise<void>;
}

/**
 * The per-route hooks, in the one order they are registered — and so, within a phase, the
 * order they run in (plugins/route-hooks.ts: a route's hooks run in the order they were
 * attached). Why this order:
 * - authentication before the rate limit: a request is counted against the token that
 *   made it, and one with a missing or refused credential is answered 401 before it can
 *   use up anybody's budget (PRODUCT §4);
 * - both before idempotency (preHandler): a refused or limited request never opens a
 *   request transaction or waits on an Idempotency-Key another request holds; the same
 *   holds for auth's own preHandler, the check of the stores a body names (PRODUCT §4);
 * - idempotency before the list cache (their routes do not overlap today: writes vs GETs);
 * - every check of a request — query, params, headers, body — before any cache can answer
 *   it (issue 40): the schema's validation, the query names, the NUL guard and the
 *   read-after token run by the end of preValidation/validation; the caches answer no
 *   earlier than preHandler (the list cache, the idempotent replay) or in the handler
 *   (single-product stock answers, stock listing counts). A check of its own in a preHandler
 *   would run after a cache hit: test/modules/cache-validation.test.ts walks every cached route.
 * - metrics observe every answer (onResponse), refusals included.
 * test/modules/hook-order.test.ts proves the order on POST /stores.
 */
export const ROUTE_HOOKS: readonly RouteHookStep[] = [
  { name: 'query names', phases: 'preValidation', register: (app) => registerCaseInsensitiveQuery(app) },
  { name: 'NUL guard', phases: 'preValidation', register: (app) => registerNulGuard(app) },
  {
    name: 'read-after token',
    phases: 'preValidation',
    register: (app, { handle }) => registerReadAfterCheck(app, handle),
  },
  { name: 'metrics', phases: 'onResponse', register: (app, { handle }) => registerMetrics(app, handle) },
  {
    name: 'auth',
    phases: 'onRequest, preHandler',
    register: (app, { config, handle }) => registerAuth(app, handle.db, config),
  },
  {
    name: 'rate limit',
    phases: 'onRequest',
    register: (app, { config }) => registerRateLimit(app, config.rateLimitPerMinute),
  },
  {
    name: 'idempotency',
    phases: 'preHandler, onSend',
    register: (app, { handle }) => registerIdempotency(app, handle.db),
  },
  { name: 'list cache', phases: 'preHandler, onSend', register: (app, { handle }) => registerListCache(app, handle) },
];

/** Registers every per-route hook in ROUTE_HOOKS order; before any route that needs them. */
export async function registerRouteHooks(
  app: FastifyInstance,
  deps: { config: Config; handle: DbHandle },
): Promise<void> {
  for (const step of ROUTE_HOOKS) await step.register(app, deps);
}
