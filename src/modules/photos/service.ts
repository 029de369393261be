import { createHash } from 'node:crypto';
import type { AppContext } from '../../app-context.js';
import { inTransaction } from '../../db/transaction.js';
import { AppError, notFound, validationFailed } from '../../shared/errors.js';
import { requireLiveStore } from '../stores/repository.js';
import { imageTypeName, PHOTO_MEDIA_TYPES, sniffImageType, type PhotoMediaType } from './image-types.js';
import * as photos from './repository.js';
import type { StoredPhoto } from './repository.js';
import { assertWithinQuota, dayStart } from './quota.js';

/** `created`: stored now (201); `unchanged`: the same bytes were stored before (200). */
export type UploadOutcome = 'created' | 'unchanged';

const ACCEPTED = PHOTO_MEDIA_TYPES.join(', ');

/**
 * PUT /stores/{s}/photos/{sha256}: the checks the request alone allows first (400, 415), then
 * the store (404), then the day's quota (429) — which a photo already stored never meets: an
 * upload sent again is a no-op, whenever and however often it comes.
 */
export async function uploadPhoto(
  ctx: AppContext,
  storeNumber: string,
  sha256: string,
  declaredType: PhotoMediaType,
  bytes: Buffer,
  actor: string,
): Promise<UploadOutcome> {
  assertPhotoBytes(sha256, declaredType, bytes);
  const store = await requireLiveStore(ctx.db, storeNumber);
  if (await photos.photoExists(ctx.db, storeNumber, sha256)) return 'unchanged';
  return inTransaction(
    ctx.handle,
    async (trx) => {
      // Taken in turn per store: two uploads cannot both fit into the last of a day's quota.
      const now = Date.now();
      assertWithinQuota(storeNumber, await photos.usageSince(trx, storeNumber, dayStart(now)), bytes.length, now);
      const inserted = await photos.insertPhoto(trx, {
        store_number: storeNumber,
        sha256,
        content_type: declaredType,
        bytes,
        byte_size: bytes.length,
        created_on: now,
        created_by: actor,
      });
      return inserted ? 'created' : 'unchanged';
    },
    { serialise: [`photos:${store.id}`] },
  );
}

/** The checks of the bytes against the path and the declared type: 400 for the body or its name, 415 for its type. */
function assertPhotoBytes(sha256: string, declaredType: PhotoMediaType, bytes: Buffer): void {
  if (bytes.length === 0)
    throw validationFailed('The request body is empty: send the photo itself', [
      { path: 'body', message: 'must be the photo, not empty' },
    ]);
  const actualHash = createHash('sha256').update(bytes).digest('hex');
  if (actualHash !== sha256)
    throw validationFailed("The path's sha256 is not the SHA-256 of the body", [
      { path: 'params.sha256', message: `must be the SHA-256 of the body, which is ${actualHash}` },
    ]);
  const actualType = sniffImageType(bytes);
  if (actualType !== declaredType) {
    const found = actualType === undefined ? `none of ${ACCEPTED}` : `a ${imageTypeName(actualType)} image`;
    throw new AppError(
      'UNSUPPORTED_MEDIA_TYPE',
      `The body is not a ${imageTypeName(declaredType)} image as its Content-Type says: it is ${found}`,
      [{ path: 'headers.content-type', message: `declares ${declaredType}, but the body is ${found}` }],
    );
  }
}

/** GET /stores/{s}/photos/{sha256}: the stored photo, or a 404. */
export async function readPhoto(ctx: AppContext, storeNumber: string, sha256: string): Promise<StoredPhoto> {
  const photo = await photos.findPhoto(ctx.db, storeNumber, sha256);
  if (!photo) throw photoNotFound(storeNumber, sha256);
  return photo;
}

/** A revalidation (If-None-Match): whether the photo is there, without reading its bytes; else a 404. */
export async function requirePhoto(ctx: AppContext, storeNumber: string, sha256: string): Promise<void> {
  if (!(await photos.photoExists(ctx.db, storeNumber, sha256))) throw photoNotFound(storeNumber, sha256);
}

const photoNotFound = (storeNumber: string, sha256: string) =>
  notFound(`Store '${storeNumber}' has no photo ${sha256}`);
