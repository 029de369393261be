import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { ControlledTransaction, Kysely } from 'kysely';
import type { AppContext } from '../app-context.js';
import type { Database } from '../db/schema.js';
import { conflict, validationFailed } from '../shared/errors.js';
import { requestMeaning } from './request-meaning.js';
import { hookEachRoute, hookRoutes } from './route-hooks.js';

const WINDOW_MILLIS = 24 * 60 * 60 * 1000;
const MAX_KEY_LENGTH = 255;
const WRITE_METHODS = new Set(['POST', 'PUT', 'DELETE', 'PATCH']);
/**
 * status_code of a key stored by versions before the request transaction: committed, answer
 * never stored. Such a key can only be refused (applying it again could double it); it ages
 * out with the 24 h window. No key of this version is ever stored so.
 */
const LEGACY_APPLIED_WITHOUT_RESPONSE = 0;

/** Answers kept for a retry. The others leave nothing: the client is free to try again. */
function isReplayable(status: number): boolean {
  return status < 500 && status !== 429 && status !== 401 && status !== 403 && status !== 409;
}

/**
 * `Idempotency-Key` (PRODUCT §3). A write with a key runs in one transaction of its own — the
 * request transaction — which (1) reserves the key, (2) holds every write of the request
 * (services' `inTransaction` runs inside it, in savepoints: db/transaction.ts), and (3)
 * stores the answer, then commits. So the key, the effects and the answer commit together
 * or not at all:
 * - a request that dies before its commit leaves nothing: its retry is applied as new, at
 *   once — no reservation waits to be declared abandoned;
 * - a request that committed has its answer stored: a retry replays it, always;
 * - a duplicate arriving while the first runs waits for it on the key (PostgreSQL: the
 *   uncommitted key row; SQLite: the write lock), then replays its answer, or — if the first
 *   died or answered something not kept — is applied itself. It is never refused because
 *   of a request that is no longer running.
 * The same key with another request (its meaning: request-meaning.ts — token, method, route,
 * path parameters, declared query and headers as validated, the body's declared fields) is 409.
 * Answers not kept (401, 403, 409, 429, 5xx) roll the request transaction back whole.
 */
export function registerIdempotency(app: FastifyInstance, db: Kysely<Database>): void {
  const writes = (route: RouteOptions) => [route.method].flat().some((method) => WRITE_METHODS.has(method));

  hookEachRoute(app, 'preHandler', writes, (route: RouteOptions) => {
    const meaning = requestMeaning(route);
    return (request: FastifyRequest, reply: FastifyReply) =>
      reserveOrReplay(request, reply, meaning.hash.bind(meaning));
  });

  async function reserveOrReplay(
    request: FastifyRequest,
    reply: FastifyReply,
    meaningOf: (request: FastifyRequest) => string,
  ) {
    const key = request.headers['idempotency-key'];
    if (typeof key !== 'string' || !request.principal) return;
    if (key.length === 0 || key.length > MAX_KEY_LENGTH) {
      throw validationFailed('Idempotency-Key must be 1 to 255 characters', [
        { path: 'headers.idempotency-key', message: 'must be 1 to 255 characters' },
      ]);
    }
    // `token <id>` for a sot_ token (as before issue 41), `client <client_id>` across a client's access tokens.
    const scope = request.principal.key;
    const requestHash = meaningOf(request);
    const trx = await db.startTransaction().execute();
    try {
      const stored = await reserve(trx, scope, key, requestHash, Date.now());
      if (stored === undefined) {
        request.idempotency = { scope, key, transaction: trx };
        request.ctx = requestContext(app.ctx, trx);
        return;
      }
      await trx.rollback().execute();
      if (stored.request_hash !== requestHash) {
        throw conflict('This Idempotency-Key was already used with a different request (route, parameters or body)');
      }
      if (stored.status_code === LEGACY_APPLIED_WITHOUT_RESPONSE) {
        throw conflict(
          'The request with this Idempotency-Key was applied, but its response was lost; read the data back instead of retrying',
        );
      }
      reply.header('idempotent-replayed', 'true');
      reply.code(stored.status_code!).type(stored.content_type ?? 'application/json');
      return reply.send(stored.response_body);
    } catch (error) {
      if (!trx.isCommitted && !trx.isRolledBack)
        await trx
          .rollback()
          .execute()
          .catch(() => undefined);
      throw error;
    }
  }

  hookRoutes(app, 'onSend', writes, async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const trx = takeTransaction(request);
    if (!trx) return payload;
    if (!isReplayable(reply.statusCode)) {
      await trx
        .rollback()
        .execute()
        .catch(() => undefined);
      return payload;
    }
    const { scope, key } = request.idempotency!;
    const stored = trx.updateTable('idempotency_keys').where('scope', '=', scope).where('idempotency_key', '=', key);
    const body =
      typeof payload === 'string'
        ? payload
        : payload === null || payload === undefined
          ? ''
          : Buffer.isBuffer(payload)
            ? payload.toString('utf8')
            : undefined;
    try {
      if (body !== undefined) {
        await stored
          .set({
            status_code: reply.statusCode,
            response_body: body,
            content_type: String(reply.getHeader('content-type') ?? 'application/json'),
          })
          .execute();
      } else {
        // A streamed answer cannot be kept: the effects commit, the key does not (no write route streams today).
        await trx
          .deleteFrom('idempotency_keys')
          .where('scope', '=', scope)
          .where('idempotency_key', '=', key)
          .execute();
      }
      await trx.commit().execute();
    } catch (error) {
      // Not committed (or not known to be): the answer becomes the error's (503 when the
      // database is gone). A retry replays the request if it did commit, else applies it.
      await trx
        .rollback()
        .execute()
        .catch(() => undefined);
      throw error;
    }
    return payload;
  });

  // A request that ends without an answer passing onSend (the client went away mid-way):
  // its transaction must not stay open.
  hookRoutes(app, 'onResponse', writes, async (request: FastifyRequest) => {
    await takeTransaction(request)
      ?.rollback()
      .execute()
      .catch(() => undefined);
  });
}

/**
 * Reserves the key inside `trx`, or returns what is stored under it. On PostgreSQL the insert
 * waits while another transaction holds an uncommitted reservation of the same key, and then
 * conflicts (it committed) or succeeds (it rolled back or died).
 */
async function reserve(
  trx: ControlledTransaction<Database>,
  scope: string,
  key: string,
  requestHash: string,
  now: number,
) {
  for (;;) {
    const reserved = await trx
      .insertInto('idempotency_keys')
      .values({
        scope,
        idempotency_key: key,
        request_hash: requestHash,
        status_code: null,
        response_body: null,
        content_type: null,
        created_at: now,
      })
      .onConflict((oc) => oc.columns(['scope', 'idempotency_key']).doNothing())
      .returning('created_at')
      .executeTakeFirst();
    if (reserved) return undefined;
    const stored = await trx
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('scope', '=', scope)
      .where('idempotency_key', '=', key)
      .executeTakeFirst();
    if (!stored) continue; // purged in between: reserve again
    // Past the window the key is new again; a reservation without an answer was left by a
    // version before the request transaction, whose request never committed (no answer, no mark).
    if (now - stored.created_at > WINDOW_MILLIS || stored.status_code === null) {
      await trx
        .deleteFrom('idempotency_keys')
        .where('scope', '=', scope)
        .where('idempotency_key', '=', key)
        .where('created_at', '=', stored.created_at)
        .execute();
      continue;
    }
    return stored;
  }
}

/** The request's transaction, handed over once: whoever takes it ends it. */
function takeTransaction(request: FastifyRequest): ControlledTransaction<Database> | undefined {
  const reservation = request.idempotency;
  const trx = reservation?.transaction;
  if (!reservation || !trx || trx.isCommitted || trx.isRolledBack) return undefined;
  reservation.transaction = undefined;
  return trx;
}

/** What services get for a request with a key: every read and write goes through its transaction. */
function requestContext(ctx: AppContext, trx: ControlledTransaction<Database>): AppContext {
  return { ...ctx, db: trx, handle: { ...ctx.handle, db: trx, requestScope: { transaction: trx } } };
}

/** Drops keys older than the 24 h window; called on a timer by the server. */
export async function purgeExpiredIdempotencyKeys(db: Kysely<Database>, now = Date.now()): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where('created_at', '<', now - WINDOW_MILLIS)
    .execute();
}
