import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import type { DbErrorKind, Dialect } from '../db/dialect/types.js';
import { QuantityRangeError } from '../domain/decimal.js';
import { AppError, codeForStatus, errorEnvelope, hasOwnCode, type ErrorCode } from '../shared/errors.js';
import { toFieldErrors } from '../shared/validation.js';
import { ShutdownCut } from '../db/shutdown-cut.js';
import { SHUTDOWN_CUT_ANSWER } from './shutdown.js';

const MAX_ECHOED_PATH = 200;

const INVALID_PART: Record<string, string | undefined> = {
  body: 'The request body is invalid',
  querystring: 'The query string is invalid',
  params: 'The path parameters are invalid',
  headers: 'The request headers are invalid',
};

/** Kysely's answer on every dialect once the pool is gone (shutdown, lost database). */
function isClosedDatabase(error: Error): boolean {
  return error.message === 'driver has already been destroyed';
}

/**
 * The database could not do the request's work, and the request left nothing behind (its
 * transaction never committed): the answer says when to try again (issue 27, docs/decisions.md
 * "Database faults"). `Retry-After` in seconds: a busy database frees up within a moment; a
 * lost one is back within seconds of its restart (the pool reconnects on the next request);
 * a full disk needs an operator.
 */
export const DATABASE_FAULTS = {
  unavailable: {
    status: 503,
    code: 'UNAVAILABLE',
    retryAfterSeconds: 2,
    message: 'The database is unavailable; try again shortly',
  },
  busy: { status: 503, code: 'UNAVAILABLE', retryAfterSeconds: 1, message: 'The database is busy; retry the request' },
  full: {
    status: 507,
    code: 'INSUFFICIENT_STORAGE',
    retryAfterSeconds: 60,
    message: 'The database has no space left for this write; nothing was written, try again later',
  },
} as const satisfies Record<string, { status: number; code: ErrorCode; retryAfterSeconds: number; message: string }>;

export type DatabaseFault = keyof typeof DATABASE_FAULTS;

/** The database fault a request was answered with, for /metrics (plugins/metrics.ts). */
export const databaseFaultOf = new WeakMap<FastifyRequest, DatabaseFault>();

function faultOf(kind: DbErrorKind): DatabaseFault | undefined {
  // A serialization failure or deadlock still there after inTransaction's retries: busy.
  if (kind === 'retryable' || kind === 'busy') return 'busy';
  if (kind === 'unavailable' || kind === 'full') return kind;
  return undefined;
}

/**
 * The one place a failure becomes a response (PRODUCT §3 error envelope). Client
 * mistakes keep their status; database trouble becomes 503 or 409; anything else is a
 * 500 whose body never carries a stack trace or SQL (the log has them).
 */
export function registerErrorHandler(app: FastifyInstance, dialect: Dialect): void {
  app.setErrorHandler((error: FastifyError | AppError, request, reply) => {
    if (error instanceof AppError) {
      return reply.code(error.statusCode).send(errorEnvelope(error.code, error.message, error.errors));
    }
    // A kept sum that would leave the exact range (domain/decimal.ts), wherever it was computed:
    // PRODUCT §3 "Exact numbers", 422 naming the quantity.
    if (error instanceof QuantityRangeError) {
      return reply
        .code(422)
        .send(
          errorEnvelope('UNPROCESSABLE', 'A quantity would leave the range the service keeps exactly', [
            { path: error.site.path ?? 'body', message: error.message },
          ]),
        );
    }
    if (error.validation) {
      const errors = toFieldErrors(error.validation as never, error.validationContext);
      return reply
        .code(400)
        .send(
          errorEnvelope(
            'VALIDATION_FAILED',
            INVALID_PART[error.validationContext ?? ''] ?? 'The request is invalid',
            errors,
          ),
        );
    }
    const status = error.statusCode ?? 0;
    if (status >= 400 && status < 500) {
      const message =
        status === 400 && /JSON/i.test(error.message) ? `Malformed JSON body: ${error.message}` : error.message;
      return reply.code(hasOwnCode(status) ? status : 400).send(errorEnvelope(codeForStatus(status), message));
    }
    // Cut by the shutdown's grace (plugins/shutdown.ts): rolled back, the client retries elsewhere.
    if (error instanceof ShutdownCut) {
      databaseFaultOf.set(request, 'unavailable');
      return reply
        .code(SHUTDOWN_CUT_ANSWER.status)
        .header('retry-after', String(SHUTDOWN_CUT_ANSWER.retryAfterSeconds))
        .send(errorEnvelope(SHUTDOWN_CUT_ANSWER.code, SHUTDOWN_CUT_ANSWER.message));
    }
    const kind = isClosedDatabase(error) ? 'unavailable' : dialect.classifyError(error);
    const fault = faultOf(kind);
    if (fault !== undefined) {
      const answer = DATABASE_FAULTS[fault];
      // A lost or full database is the operator's business (error); a busy one is load (warn).
      if (fault === 'busy') request.log.warn({ err: error }, 'database busy');
      else request.log.error({ err: error }, fault === 'full' ? 'database storage full' : 'database unavailable');
      databaseFaultOf.set(request, fault);
      return reply
        .code(answer.status)
        .header('retry-after', String(answer.retryAfterSeconds))
        .send(errorEnvelope(answer.code, answer.message));
    }
    if (kind === 'unique') {
      return reply
        .code(409)
        .send(errorEnvelope('CONFLICT', 'A record with the same key was written at the same time; retry the request'));
    }
    if (kind === 'archived') {
      return reply.code(422).send(
        // The backstop (the CHECK (false) partition below the boundary): the engine refuses such an
        // entry first, naming its line and field (ledger/book.ts refuseArchivedMoments). Which line
        // the database refused is not known here, so no field is named rather than a wrong one.
        errorEnvelope(
          'UNPROCESSABLE',
          'An entry is dated in a month of the ledger that has been archived (store-ops ledger archive): it can no longer be booked',
        ),
      );
    }
    request.log.error({ err: error }, 'unhandled error');
    return reply.code(500).send(errorEnvelope('INTERNAL', 'Internal server error'));
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0]!;
    // A path can be 16 KiB long: the answer names its start, it does not echo it whole.
    const named = path.length > MAX_ECHOED_PATH ? `${path.slice(0, MAX_ECHOED_PATH)}…` : path;
    reply.code(404).send(errorEnvelope('NOT_FOUND', `No route ${request.method} ${named}`));
  });
}
