import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { AppContext } from '../app-context.js';
import type { DbHandle } from '../db/dialect/types.js';
import { parseLsn } from '../db/dialect/postgres-read.js';
import { validationFailed } from '../shared/errors.js';
import { hookEachRoute, hookRoutes } from './route-hooks.js';

/** The consistency token: a write answer's WAL position, sent back on a read to see that write. */
export const READ_AFTER_HEADER = 'x-read-after';
/** Where a read was served (only with DATABASE_READ_URL): `standby` or `primary`. */
export const SERVED_BY_HEADER = 'x-served-by';

const WRITE_METHODS = new Set(['POST', 'PUT', 'DELETE', 'PATCH']);
const methodsOf = (route: RouteOptions) => [route.method].flat();
/** The reads a token may be sent to (and is checked on). */
const gets = (route: RouteOptions) =>
  methodsOf(route).includes('GET') && route.url !== '/metrics' && !route.url.startsWith('/console');

/** The token a read sent, undefined when none; a malformed one is a 400 naming the header. */
export function readAfterOf(request: FastifyRequest): bigint | undefined {
  const value = request.headers[READ_AFTER_HEADER];
  if (value === undefined) return undefined;
  const lsn = typeof value === 'string' ? parseLsn(value.trim()) : undefined;
  if (lsn === undefined) {
    throw validationFailed(`${READ_AFTER_HEADER} must be a WAL position as a write answer gave it (e.g. 0/16B3748)`, [
      { path: `headers.${READ_AFTER_HEADER}`, message: 'must be a WAL position (hex/hex)' },
    ]);
  }
  return lsn;
}

/**
 * The check of a read's `x-read-after` (PostgreSQL only): a malformed token is a 400 naming
 * the header. In preValidation, a step of ROUTE_HOOKS (hook-order.ts), so it runs before any
 * cache can answer (issue 40: a list-cache hit answered 200 where a miss answered 400). A
 * callback hook: no promise on the hot reads.
 */
export function registerReadAfterCheck(app: FastifyInstance, handle: DbHandle): void {
  if (handle.dialect.name !== 'postgres') return;
  hookRoutes(
    app,
    'preValidation',
    gets,
    (request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void) => {
      if (request.headers[READ_AFTER_HEADER] === undefined) return done();
      try {
        readAfterOf(request);
      } catch (error) {
        return done(error as Error);
      }
      done();
    },
  );
}

/**
 * Read scaling (issue 31, docs/operations.md "Read scaling"). PostgreSQL only:
 * - with standbys (DATABASE_READ_URL), every 2xx to a write carries `x-read-after`, the
 *   primary's WAL position read after the commit (registered after idempotency, whose onSend
 *   commits a keyed request);
 * - a GET route marked `config: { reads: 'standby' }` is served by a standby of
 *   DATABASE_READ_URL that is up and within the lag limit — with a token, one that has
 *   replayed it (waiting ≤ 1 s) — else by the primary; every other route stays on the primary;
 * - every GET checks a token it is sent (400 when malformed: registerReadAfterCheck, before
 *   any cache), and answers `x-served-by` when standbys are configured.
 */
export function registerReadRouting(app: FastifyInstance, handle: DbHandle): void {
  if (handle.dialect.name !== 'postgres') return;
  const writePosition = handle.writePosition?.bind(handle);
  // Only where standbys serve reads: without them a token buys nothing, and its query would
  // cost every write (docs/operations.md "Read scaling": every process gets the same settings).
  if (writePosition !== undefined && handle.reads !== undefined) {
    hookRoutes(
      app,
      'onSend',
      (route) => methodsOf(route).some((m) => WRITE_METHODS.has(m)),
      async (_request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
        if (reply.statusCode >= 200 && reply.statusCode < 300) {
          // The write committed; a primary lost just now leaves the answer without a token, never fails it.
          const lsn = await writePosition().catch(() => undefined);
          if (lsn !== undefined) reply.header(READ_AFTER_HEADER, lsn);
        }
        return payload;
      },
    );
  }

  const reads = handle.reads;
  const contexts = new Map<unknown, AppContext>();
  const contextOf = (db: AppContext['db']): AppContext => {
    let ctx = contexts.get(db);
    if (ctx === undefined) {
      ctx = { ...app.ctx, db, handle: { ...app.ctx.handle, db } };
      contexts.set(db, ctx);
    }
    return ctx;
  };
  const gets = (route: RouteOptions) =>
    methodsOf(route).includes('GET') && route.url !== '/metrics' && !route.url.startsWith('/console');
  // Without standbys a token only needs checking: registerReadAfterCheck, before any cache (issue 40).
  if (reads === undefined) return;
  hookEachRoute(app, 'preHandler', gets, (route) => async (request: FastifyRequest, reply: FastifyReply) => {
    const after = readAfterOf(request); // checked already (registerReadAfterCheck)
    if (route.config?.reads !== 'standby') {
      reply.header(SERVED_BY_HEADER, 'primary');
      return;
    }
    const standby = await reads.choose(after);
    if (standby === undefined) {
      reply.header(SERVED_BY_HEADER, 'primary');
      return;
    }
    request.ctx = contextOf(standby.db);
    reply.header(SERVED_BY_HEADER, 'standby');
  });
}
