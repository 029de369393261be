import { Type, type Static } from '@sinclair/typebox';
import { StoreNumberParams } from '../../shared/schemas.js';
import { PHOTO_MEDIA_TYPES } from './image-types.js';

/** Largest photo accepted (docs/photos.md "Limits"): a phone photo scaled for a loss, with room to spare. */
export const MAX_PHOTO_BYTES = 2 * 1024 * 1024;

/**
 * The photo's name: the SHA-256 of its bytes, lower-case hex. One spelling only, so one
 * photo has one path (and one `loss_image` text) and a cache never holds it twice.
 */
export const Sha256Hex = Type.String({
  minLength: 64,
  maxLength: 64,
  pattern: '^[0-9a-f]{64}$',
  description: "SHA-256 of the photo's bytes as 64 lower-case hex digits",
});

export const PhotoParams = Type.Object({
  store_number: StoreNumberParams.properties.store_number,
  sha256: Sha256Hex,
});
export type PhotoParams = Static<typeof PhotoParams>;

/** The bytes of a photo, as the OpenAPI document describes a request or response body of each type. */
const photoContent = (description: string) => ({
  description,
  content: Object.fromEntries(
    PHOTO_MEDIA_TYPES.map((type) => [
      type,
      { schema: { type: 'string', format: 'binary', maxLength: MAX_PHOTO_BYTES } },
    ]),
  ),
});

/** Request body of the upload, for the OpenAPI document only (the route reads raw bytes: routes.ts). */
export const PhotoUploadBody = photoContent(
  `The image as sent by the camera: image/jpeg, image/png or image/webp, at most ${MAX_PHOTO_BYTES} bytes; its first bytes must be of the declared type`,
);

/** Response of a read, for the OpenAPI document (a Buffer is sent as it is, never serialized). */
export const PhotoBytesResponse = photoContent('The photo, with the type it was stored under');
