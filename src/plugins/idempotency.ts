import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { APPLIED_WITHOUT_RESPONSE } from '../db/transaction.js';
import { conflict, validationFailed } from '../shared/errors.js';
import type { RequestScope } from '../shared/request-scope.js';
import { requestMeaning } from './request-meaning.js';
import { hookEachRoute, hookRoutes } from './route-hooks.js';

const WINDOW_MILLIS = 24 * 60 * 60 * 1000;
/** A reservation with no response after this long belongs to a request that died. */
const ABANDONED_MILLIS = 5 * 60 * 1000;
const MAX_KEY_LENGTH = 255;
const WRITE_METHODS = new Set(['POST', 'PUT', 'DELETE', 'PATCH']);

/** Statuses whose response is not kept: the client should be free to try again. */
function isReplayable(status: number): boolean {
  return status < 500 && status !== 429 && status !== 401 && status !== 403 && status !== 409;
}

/**
 * `Idempotency-Key` (PRODUCT §3): the first request with a key reserves it in the
 * database (so the key holds across restarts and processes); its response is stored and
 * replayed for the same key and the same request within 24 h; the same key with another
 * request is 409. A key belongs to its token (scope); "the same request" is its meaning
 * (request-meaning.ts: method, route, path parameters, declared query and headers as
 * validated, the body as canonical JSON of its declared fields), never its spelling, so
 * `?AppUserName=bob` and `?appUserName=bob` are one request, and the same key on another
 * route or with another query value is a 409, like another body.
 */
export function registerIdempotency(app: FastifyInstance, db: Kysely<Database>): void {
  const writes = (route: RouteOptions) => [route.method].flat().some((method) => WRITE_METHODS.has(method));

  hookEachRoute(app, 'preHandler', writes, (route: RouteOptions) => {
    const meaning = requestMeaning(route);
    return (request: FastifyRequest, reply: FastifyReply) => reserveOrReplay(request, reply, meaning.hash.bind(meaning));
  });

  async function reserveOrReplay(request: FastifyRequest, reply: FastifyReply, meaningOf: (request: FastifyRequest) => string) {
    const key = request.headers['idempotency-key'];
    if (typeof key !== 'string' || !request.principal) return;
    if (key.length === 0 || key.length > MAX_KEY_LENGTH) {
      throw validationFailed('Idempotency-Key must be 1 to 255 characters', [{ path: 'headers.idempotency-key', message: 'must be 1 to 255 characters' }]);
    }
    const scope = `token ${request.principal.tokenId}`;
    const requestHash = meaningOf(request);
    const now = Date.now();

    for (let attempt = 0; attempt < 2; attempt++) {
      const reserved = await db
        .insertInto('idempotency_keys')
        .values({ scope, idempotency_key: key, request_hash: requestHash, status_code: null, response_body: null, content_type: null, created_at: now })
        .onConflict((oc) => oc.columns(['scope', 'idempotency_key']).doNothing())
        .returning('created_at')
        .executeTakeFirst();
      if (reserved) {
        request.idempotency = { scope, key };
        // The request's own context: its transactions mark the key applied as they commit.
        const requestScope: RequestScope = { idempotency: request.idempotency };
        request.ctx = { ...app.ctx, handle: { ...app.ctx.handle, requestScope } };
        return;
      }
      const stored = await db
        .selectFrom('idempotency_keys')
        .selectAll()
        .where('scope', '=', scope)
        .where('idempotency_key', '=', key)
        .executeTakeFirst();
      if (!stored) continue; // deleted in between: reserve again
      const expired = now - stored.created_at > WINDOW_MILLIS;
      const abandoned = stored.status_code === null && now - stored.created_at > ABANDONED_MILLIS;
      if (expired || abandoned) {
        await db.deleteFrom('idempotency_keys').where('scope', '=', scope).where('idempotency_key', '=', key).where('created_at', '=', stored.created_at).execute();
        continue;
      }
      if (stored.request_hash !== requestHash) {
        throw conflict('This Idempotency-Key was already used with a different request (route, parameters or body)');
      }
      if (stored.status_code === null) {
        throw conflict('A request with this Idempotency-Key is still being processed');
      }
      if (stored.status_code === APPLIED_WITHOUT_RESPONSE) {
        // Committed, but the process stopped before storing the answer: never apply twice.
        throw conflict('The request with this Idempotency-Key was applied, but its response was lost; read the data back instead of retrying');
      }
      reply.header('idempotent-replayed', 'true');
      reply.code(stored.status_code).type(stored.content_type ?? 'application/json');
      return reply.send(stored.response_body);
    }
    throw conflict('This Idempotency-Key is contended; retry the request');
  }

  hookRoutes(app, 'onSend', writes, async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const reservation = request.idempotency;
    if (!reservation) return payload;
    const where = db
      .updateTable('idempotency_keys')
      .where('scope', '=', reservation.scope)
      .where('idempotency_key', '=', reservation.key);
    if (isReplayable(reply.statusCode) && (typeof payload === 'string' || payload === null || payload === undefined)) {
      await where
        .set({ status_code: reply.statusCode, response_body: (payload as string | null) ?? '', content_type: String(reply.getHeader('content-type') ?? 'application/json') })
        .execute();
    } else if (request.ctx.handle.requestScope?.appliedMarked) {
      // Its writes committed but the answer is not replayable (e.g. a 500 after the commit):
      // keep the key marked applied, so a retry is refused instead of applied twice.
    } else {
      await db.deleteFrom('idempotency_keys').where('scope', '=', reservation.scope).where('idempotency_key', '=', reservation.key).execute();
    }
    return payload;
  });
}

/** Drops keys older than the 24 h window; called on a timer by the server. */
export async function purgeExpiredIdempotencyKeys(db: Kysely<Database>, now = Date.now()): Promise<void> {
  await db.deleteFrom('idempotency_keys').where('created_at', '<', now - WINDOW_MILLIS).execute();
}
