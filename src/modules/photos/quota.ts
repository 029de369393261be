import { AppError } from '../../shared/errors.js';

/**
 * How much one store may upload in one UTC day (docs/photos.md "Quota"). A guard against a
 * device or script gone wrong, not a budget anyone should meet: a store recording 200 losses
 * a day with phone photos scaled to ~300 KB uses about 60 MB. Photos are kept as long as the
 * ledger (docs/photos.md "Retention"), so what is not refused here is stored for years.
 */
export const PHOTOS_PER_STORE_PER_DAY = 2_000;
export const PHOTO_BYTES_PER_STORE_PER_DAY = 256 * 1024 * 1024;

const DAY_MILLIS = 24 * 60 * 60 * 1000;

/** Midnight UTC of the day `now` lies in: where the day's count starts. */
export function dayStart(now: number): number {
  return now - (now % DAY_MILLIS);
}

/** A store's photos of the day so far. */
export interface DayUsage {
  photos: number;
  bytes: number;
}

/** A 429 with the seconds until the next UTC day, when the store's quota is whole again. */
export class PhotoQuotaExceeded extends AppError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super('RATE_LIMITED', message);
  }
}

/** Refuses a photo of `size` bytes that would take the store's day beyond either limit. */
export function assertWithinQuota(storeNumber: string, usage: DayUsage, size: number, now: number): void {
  const overCount = usage.photos + 1 > PHOTOS_PER_STORE_PER_DAY;
  const overBytes = usage.bytes + size > PHOTO_BYTES_PER_STORE_PER_DAY;
  if (!overCount && !overBytes) return;
  const retryAfterSeconds = Math.max(1, Math.ceil((dayStart(now) + DAY_MILLIS - now) / 1000));
  const limit = overCount
    ? `${PHOTOS_PER_STORE_PER_DAY} photos`
    : `${PHOTO_BYTES_PER_STORE_PER_DAY / (1024 * 1024)} MiB of photos`;
  throw new PhotoQuotaExceeded(
    `Store '${storeNumber}' has uploaded ${limit} today (UTC), its daily limit; retry in ${retryAfterSeconds} s`,
    retryAfterSeconds,
  );
}
