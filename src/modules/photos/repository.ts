import type { Transaction } from 'kysely';
import type { Database, Executor, PhotoTable } from '../../db/schema.js';
import type { DayUsage } from './quota.js';

/** A stored photo as a read serves it. */
export interface StoredPhoto {
  content_type: string;
  bytes: Buffer;
}

export function findPhoto(db: Executor, storeNumber: string, sha256: string): Promise<StoredPhoto | undefined> {
  return db
    .selectFrom('photos')
    .select(['content_type', 'bytes'])
    .where('store_number', '=', storeNumber)
    .where('sha256', '=', sha256)
    .executeTakeFirst();
}

/** Whether the photo is stored, without reading its bytes (a revalidation, a repeated upload). */
export async function photoExists(db: Executor, storeNumber: string, sha256: string): Promise<boolean> {
  const row = await db
    .selectFrom('photos')
    .select('byte_size')
    .where('store_number', '=', storeNumber)
    .where('sha256', '=', sha256)
    .executeTakeFirst();
  return row !== undefined;
}

/** The store's photos stored at or after `since` (index photos_store_created; sizes only, never bytes). */
export async function usageSince(db: Executor, storeNumber: string, since: number): Promise<DayUsage> {
  const row = await db
    .selectFrom('photos')
    .select((eb) => [
      eb.fn.countAll<number | string>().as('photos'),
      eb.fn.sum<number | string | null>('byte_size').as('bytes'),
    ])
    .where('store_number', '=', storeNumber)
    .where('created_on', '>=', since)
    .executeTakeFirstOrThrow();
  // PostgreSQL answers count and sum as bigint/numeric text; SQLite as numbers.
  return { photos: Number(row.photos), bytes: Number(row.bytes ?? 0) };
}

/** Stores a photo; false when it was there already (a concurrent upload of the same bytes). */
export async function insertPhoto(trx: Transaction<Database>, photo: PhotoTable): Promise<boolean> {
  const inserted = await trx
    .insertInto('photos')
    .values(photo)
    .onConflict((oc) => oc.columns(['store_number', 'sha256']).doNothing())
    .returning('sha256')
    .executeTakeFirst();
  return inserted !== undefined;
}
