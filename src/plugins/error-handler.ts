import type { FastifyError, FastifyInstance } from 'fastify';
import type { Dialect } from '../db/dialect/types.js';
import { QuantityRangeError } from '../domain/decimal.js';
import { AppError, codeForStatus, errorEnvelope, hasOwnCode } from '../shared/errors.js';
import { toFieldErrors } from '../shared/validation.js';

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
        .send(errorEnvelope('UNPROCESSABLE', 'A quantity would leave the range the service keeps exactly', [{ path: error.site.path ?? 'body', message: error.message }]));
    }
    if (error.validation) {
      const errors = toFieldErrors(error.validation as never, error.validationContext);
      return reply.code(400).send(errorEnvelope('VALIDATION_FAILED', INVALID_PART[error.validationContext ?? ''] ?? 'The request is invalid', errors));
    }
    const status = error.statusCode ?? 0;
    if (status >= 400 && status < 500) {
      const message = status === 400 && /JSON/i.test(error.message) ? `Malformed JSON body: ${error.message}` : error.message;
      return reply.code(hasOwnCode(status) ? status : 400).send(errorEnvelope(codeForStatus(status), message));
    }
    switch (isClosedDatabase(error) ? 'unavailable' : dialect.classifyError(error)) {
      case 'unavailable':
        request.log.error({ err: error }, 'database unavailable');
        return reply.code(503).send(errorEnvelope('UNAVAILABLE', 'The database is unavailable; try again shortly'));
      case 'unique':
        return reply.code(409).send(errorEnvelope('CONFLICT', 'A record with the same key was written at the same time; retry the request'));
      case 'retryable':
        return reply.code(503).send(errorEnvelope('UNAVAILABLE', 'The database is busy; retry the request'));
      default:
        request.log.error({ err: error }, 'unhandled error');
        return reply.code(500).send(errorEnvelope('INTERNAL', 'Internal server error'));
    }
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0]!;
    // A path can be 16 KiB long: the answer names its start, it does not echo it whole.
    const named = path.length > MAX_ECHOED_PATH ? `${path.slice(0, MAX_ECHOED_PATH)}…` : path;
    reply.code(404).send(errorEnvelope('NOT_FOUND', `No route ${request.method} ${named}`));
  });
}
