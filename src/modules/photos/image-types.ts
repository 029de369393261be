/**
 * The image types a loss photo may have, told by their first bytes, not by what the client
 * declares (docs/photos.md "Content types"): a photo is served back with the type it was
 * stored under, so a declared type the bytes do not bear out would have the browser read
 * them as something else. Pure: no Fastify, no database.
 */
export const PHOTO_MEDIA_TYPES = ['image/jpeg', 'image/png', 'image/webp'] as const;
export type PhotoMediaType = (typeof PHOTO_MEDIA_TYPES)[number];

/** How each type begins: the bytes found at given offsets. */
const SIGNATURES: Record<PhotoMediaType, { name: string; parts: { at: number; bytes: number[] }[] }> = {
  // JPEG: the SOI marker and the start of the next marker (JFIF, Exif or raw: all begin FF D8 FF).
  'image/jpeg': { name: 'JPEG', parts: [{ at: 0, bytes: [0xff, 0xd8, 0xff] }] },
  // PNG: the fixed 8-byte signature of the PNG specification §5.2.
  'image/png': { name: 'PNG', parts: [{ at: 0, bytes: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] }] },
  // WebP: a RIFF container ("RIFF", 4 bytes of size, "WEBP").
  'image/webp': {
    name: 'WebP',
    parts: [
      { at: 0, bytes: [0x52, 0x49, 0x46, 0x46] },
      { at: 8, bytes: [0x57, 0x45, 0x42, 0x50] },
    ],
  },
};

export function isPhotoMediaType(value: string): value is PhotoMediaType {
  return (PHOTO_MEDIA_TYPES as readonly string[]).includes(value);
}

/** The media type of a Content-Type header value: lower case, parameters dropped. */
export function mediaTypeOf(contentType: string | undefined): string | undefined {
  const type = contentType?.split(';', 1)[0]?.trim().toLowerCase();
  return type === '' ? undefined : type;
}

/** The human name of a type (`JPEG`), for messages. */
export function imageTypeName(type: PhotoMediaType): string {
  return SIGNATURES[type].name;
}

function begins(bytes: Uint8Array, type: PhotoMediaType): boolean {
  return SIGNATURES[type].parts.every(
    (part) =>
      bytes.length >= part.at + part.bytes.length && part.bytes.every((byte, index) => bytes[part.at + index] === byte),
  );
}

/** The photo type the bytes begin as, or undefined when they begin as none of them. */
export function sniffImageType(bytes: Uint8Array): PhotoMediaType | undefined {
  return PHOTO_MEDIA_TYPES.find((type) => begins(bytes, type));
}
