import { randomBytes } from 'node:crypto';

/**
 * Signing secrets as Standard Webhooks 1.0 writes them (PRODUCT §9): `whsec_` and the key in
 * standard base64. The key is what signs; the receivers' libraries (npm `standardwebhooks`,
 * Svix's…) take the whole `whsec_…` text.
 */

export const SECRET_PREFIX = 'whsec_';
/** Key sizes a given secret may have: 24 bytes (192 bits) at least, as the specification recommends; 64 at most (one HMAC-SHA256 block). */
export const MIN_SECRET_BYTES = 24;
export const MAX_SECRET_BYTES = 64;
/** A generated secret's key: 32 random bytes. */
const GENERATED_SECRET_BYTES = 32;

export function generateSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(GENERATED_SECRET_BYTES).toString('base64')}`;
}

/**
 * Why a given secret is refused, or undefined when it is good: the prefix, then canonical
 * standard base64 (padding included, as every verifier decodes it), of 24 to 64 bytes.
 */
export function refusedSecret(secret: string): string | undefined {
  const rule = `must be '${SECRET_PREFIX}' followed by the standard base64 of ${MIN_SECRET_BYTES} to ${MAX_SECRET_BYTES} bytes`;
  if (!secret.startsWith(SECRET_PREFIX)) return rule;
  const encoded = secret.slice(SECRET_PREFIX.length);
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(encoded) || encoded.length % 4 !== 0) return rule;
  const key = Buffer.from(encoded, 'base64');
  // Non-canonical text (stray bits in the last character) decodes differently in other libraries.
  if (key.toString('base64') !== encoded) return rule;
  if (key.length < MIN_SECRET_BYTES || key.length > MAX_SECRET_BYTES)
    return `${rule}; this one has ${key.length} bytes`;
  return undefined;
}
