import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Ack } from '../../shared/schemas.js';
import { notAPhotoType, registerPhotoBody } from './body.js';
import { isPhotoMediaType, mediaTypeOf } from './image-types.js';
import { MAX_PHOTO_BYTES, PhotoBytesResponse, PhotoParams, PhotoUploadBody } from './schema.js';
import { readPhoto, requirePhoto, uploadPhoto } from './service.js';

const PHOTO_ROUTE = '/stores/:store_number/photos/:sha256';

/**
 * A photo never changes under its name (the name is its hash): any cache may keep it for a
 * year without asking again; `private`, since only a token of its store may read it.
 */
const CACHE_CONTROL = 'private, max-age=31536000, immutable';
/**
 * The bytes are shown as the image they are, never as a page: no sniffing, and a document
 * that somehow opened them could run nothing and load nothing (docs/photos.md "Serving").
 */
const IMAGE_HEADERS = {
  'cache-control': CACHE_CONTROL,
  'x-content-type-options': 'nosniff',
  'content-security-policy': "default-src 'none'; sandbox",
  'cross-origin-resource-policy': 'same-origin',
};

/** A strong ETag: the hash itself, quoted (RFC 9110 §8.8.3). */
const etagOf = (sha256: string) => `"${sha256}"`;

/** Whether If-None-Match names this photo (RFC 9110 §13.1.2: weak comparison, or `*`). */
function matches(ifNoneMatch: string | undefined, sha256: string): boolean {
  if (ifNoneMatch === undefined) return false;
  return ifNoneMatch
    .split(',')
    .map((tag) => tag.trim().replace(/^W\//, ''))
    .some((tag) => tag === '*' || tag === etagOf(sha256));
}

/** Loss photos (issue 43, docs/photos.md): named by their SHA-256 within their store. */
export const photoRoutes: FastifyPluginAsyncTypebox = async (app) => {
  registerPhotoBody(app);
  // A relative path (docs/photos.md "The loss_image value"): the service does not know the host
  // its clients reach it by, and the same text stays right wherever it is served from.
  const pathOf = (storeNumber: string, sha256: string) =>
    `${app.prefix}/stores/${encodeURIComponent(storeNumber)}/photos/${sha256}`;

  app.put(
    PHOTO_ROUTE,
    {
      schema: {
        tags: ['stock'],
        summary: 'Upload a loss photo under the SHA-256 of its bytes (added: docs/photos.md); again: no change',
        description:
          `The body is the image itself (image/jpeg, image/png or image/webp, at most ${MAX_PHOTO_BYTES} bytes), ` +
          'its first bytes of the declared type. 201 when stored, 200 when the same photo was stored before. ' +
          "The Ack's data is the photo's path: the value a stock log entry's loss_image takes.",
        params: PhotoParams,
        response: { 200: Ack, 201: Ack },
      },
      bodyLimit: MAX_PHOTO_BYTES,
      config: {
        access: 'store',
        // The body is raw bytes: declared for the document only, so it is neither validated as
        // JSON nor part of an Idempotency-Key's meaning (the path's hash already names it).
        swaggerTransform: ({ schema, url }) => ({ schema: { ...schema, body: PhotoUploadBody }, url }),
      },
    },
    async (request, reply) => {
      const { store_number: storeNumber, sha256 } = request.params;
      const declared = mediaTypeOf(request.headers['content-type']);
      // A body arrives only through the photo parsers (body.ts); none at all is the client's to fix.
      if (!Buffer.isBuffer(request.body) || declared === undefined || !isPhotoMediaType(declared))
        throw notAPhotoType(request.headers['content-type']);
      const outcome = await uploadPhoto(
        request.ctx,
        storeNumber,
        sha256,
        declared,
        request.body,
        request.principal!.name,
      );
      const path = pathOf(storeNumber, sha256);
      reply
        .code(outcome === 'created' ? 201 : 200)
        .header('location', path)
        .header('etag', etagOf(sha256));
      return { success: true, data: path, message: outcome === 'created' ? 'stored' : 'already stored' };
    },
  );

  app.get(
    PHOTO_ROUTE,
    {
      schema: {
        tags: ['stock'],
        summary: 'A loss photo, with the type it was stored under (added: docs/photos.md)',
        params: PhotoParams,
        response: {
          200: PhotoBytesResponse,
          304: { description: 'Not modified: the photo the If-None-Match names is still this one', type: 'null' },
        },
      },
      config: { access: 'store' },
    },
    async (request, reply) => {
      const { store_number: storeNumber, sha256 } = request.params;
      // The image headers go on the photo's answers only: a 404 kept for a year would hide
      // the photo from this device once its upload arrives.
      if (matches(request.headers['if-none-match'], sha256)) {
        await requirePhoto(request.ctx, storeNumber, sha256);
        return reply
          .code(304)
          .headers({ ...IMAGE_HEADERS, etag: etagOf(sha256) })
          .send();
      }
      const photo = await readPhoto(request.ctx, storeNumber, sha256);
      return reply
        .headers({ ...IMAGE_HEADERS, etag: etagOf(sha256) })
        .type(photo.content_type)
        .send(photo.bytes);
    },
  );
};
