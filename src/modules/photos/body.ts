import type { FastifyError, FastifyInstance } from 'fastify';
import { AppError } from '../../shared/errors.js';
import { PHOTO_MEDIA_TYPES } from './image-types.js';
import { PhotoQuotaExceeded } from './quota.js';
import { MAX_PHOTO_BYTES } from './schema.js';

const ACCEPTED = PHOTO_MEDIA_TYPES.join(', ');

/** The 415 of a body that is not one of the photo types, or of no body at all. */
export const notAPhotoType = (contentType: string | undefined) =>
  new AppError(
    'UNSUPPORTED_MEDIA_TYPE',
    contentType === undefined
      ? `Send the photo as the request body with Content-Type ${ACCEPTED}`
      : `A photo is sent as ${ACCEPTED}, not ${contentType.slice(0, 100)}`,
    [{ path: 'headers.content-type', message: `must be one of ${ACCEPTED}` }],
  );

/**
 * The photo routes' own body handling, in their plugin's scope only (every other route keeps
 * JSON only, plugins/request-parsing.ts):
 * - the three image types are read as raw bytes (a Buffer), at most MAX_PHOTO_BYTES; every
 *   other type, JSON included, is a 415 naming the header, before the body is read;
 * - a body over the limit is a 413 that states the limit (Fastify's own sentence does not);
 * - a refusal of the daily quota carries Retry-After, like the per-token rate limit's 429.
 * Everything else goes on to the app's error handler (plugins/error-handler.ts), unchanged.
 */
export function registerPhotoBody(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  for (const type of PHOTO_MEDIA_TYPES) {
    app.addContentTypeParser(type, { parseAs: 'buffer', bodyLimit: MAX_PHOTO_BYTES }, (_request, body, done) =>
      done(null, body),
    );
  }
  app.addContentTypeParser('*', (request, _payload, done) => done(notAPhotoType(request.headers['content-type'])));
  app.setErrorHandler((error: FastifyError | AppError, _request, reply) => {
    if ((error as FastifyError).code === 'FST_ERR_CTP_BODY_TOO_LARGE')
      throw new AppError('PAYLOAD_TOO_LARGE', `A photo may be at most ${MAX_PHOTO_BYTES} bytes (2 MiB)`, [
        { path: 'body', message: `must be at most ${MAX_PHOTO_BYTES} bytes` },
      ]);
    if (error instanceof PhotoQuotaExceeded) reply.header('retry-after', String(error.retryAfterSeconds));
    throw error;
  });
}
