import type { FastifyInstance } from 'fastify';
import type { DbHandle } from '../db/connect.js';
import { cutStatements } from '../db/shutdown-cut.js';
import { errorEnvelope } from '../shared/errors.js';

/**
 * SIGTERM under load (PRODUCT §2: stop accepting, finish in-flight requests, exit within 5 s;
 * issue 40). From the moment the close begins:
 * - a request that still arrives (on a kept-alive connection, or pipelined) is answered at
 *   once in the PRODUCT §3 envelope: 503 UNAVAILABLE, Retry-After, `Connection: close`
 *   (Fastify's own `return503OnClosing` body is switched off in app.ts);
 * - every answer of a request in flight carries `Connection: close`, so its client does not
 *   send the next one on a connection that is about to go;
 * - the server keeps its connections DRAIN_MS longer, so requests already on their way are
 *   answered so too (server.ts), then closes them;
 * - after CUT_AFTER_MS, work still running is cut between two statements (db/shutdown-cut.ts):
 *   its transaction rolls back and its client gets the same 503, so the close finishes well
 *   inside close-with-grace's 4.5 s (server.ts) with no transaction open.
 * The background work stops in its own preClose hooks (app.ts, server.ts) and the database
 * pools are ended last (the onClose hook of app.ts).
 */
export const CUT_AFTER_MS = 3_000;
export const SHUTDOWN_RETRY_AFTER_SECONDS = 1;
const SHUTTING_DOWN =
  'The service is shutting down; nothing of this request was applied; retry it (another process, or this one after its restart)';

/**
 * How long a closing process keeps its connections before the server closes them
 * (server.ts): a request a client wrote on a kept-alive connection just before the signal —
 * or while the event loop was busy with a long synchronous SQLite statement — is read and
 * answered with the 503 envelope instead of dying with its connection unanswered.
 */
export const DRAIN_MS = 300;

const beginnings = new WeakMap<FastifyInstance, () => void>();
const arrivalsOf = new WeakMap<FastifyInstance, () => number>();
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Waits DRAIN_MS, then until a turn of the event loop reads no new request: a timer runs
 * before the loop reads its sockets, so after a long synchronous statement the requests that
 * came in meanwhile are read (and answered) before the server closes their connections.
 */
export async function drainArrivals(app: FastifyInstance): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, DRAIN_MS));
  const arrivals = arrivalsOf.get(app) ?? (() => 0);
  for (let turns = 0; turns < 50; turns++) {
    const before = arrivals();
    await nextTurn();
    await nextTurn();
    if (arrivals() === before) return;
  }
}

/** The close begins (server.ts on SIGTERM, before app.close; else app.close's preClose): see registerShutdown. */
export function beginClosing(app: FastifyInstance): void {
  beginnings.get(app)?.();
}

export function registerShutdown(app: FastifyInstance, handle: DbHandle, cutAfterMs = CUT_AFTER_MS): void {
  let closing = false;
  let cutTimer: NodeJS.Timeout | undefined;
  const begin = () => {
    if (closing) return;
    closing = true;
    cutTimer = setTimeout(() => {
      app.log.warn('shutdown: work still running after the grace for requests is cut (rolled back, answered 503)');
      cutStatements(handle.db);
    }, cutAfterMs);
    cutTimer.unref();
  };
  beginnings.set(app, begin);
  let arrivals = 0;
  arrivalsOf.set(app, () => arrivals);
  app.addHook('onRequest', (request, reply, done) => {
    if (!closing) return done();
    arrivals++;
    const answer = () =>
      reply
        .code(503)
        .header('retry-after', String(SHUTDOWN_RETRY_AFTER_SECONDS))
        .header('connection', 'close')
        .send(errorEnvelope('UNAVAILABLE', SHUTTING_DOWN));
    // A body still arriving is read (not parsed) first: answered and closed mid-upload, its
    // client would see a reset instead of this answer.
    const raw = request.raw;
    if (raw.complete || raw.readableEnded) return answer();
    raw.once('end', answer);
    raw.once('error', () => raw.destroy());
    raw.resume();
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('connection', 'close');
    done(null, payload);
  });
  // Registered before every other preClose hook: the first thing the close does after
  // Fastify stops routing.
  app.addHook('preClose', (done) => {
    begin();
    done();
  });
  app.addHook('onClose', (_instance, done) => {
    if (cutTimer !== undefined) clearTimeout(cutTimer);
    done();
  });
}

/** The answer of a request cut by the shutdown (plugins/error-handler.ts). */
export const SHUTDOWN_CUT_ANSWER = {
  status: 503,
  code: 'UNAVAILABLE',
  retryAfterSeconds: SHUTDOWN_RETRY_AFTER_SECONDS,
  message: SHUTTING_DOWN,
} as const;
