import type { Kysely, Selectable } from 'kysely';
import type { Database } from './schema.js';

/** Tables whose rows have an integer `id` key. */
type TableWithId = {
  [T in keyof Database]: Selectable<Database[T]> extends { id: number } ? T : never;
}[keyof Database];

/**
 * Every row of a table in id order, a batch at a time: `store-ops verify` reads whole
 * tables of any size without holding them in memory, and keyset batches (not OFFSET) cost
 * the same at the end of the table as at its start.
 */
export async function* rowBatches<T extends TableWithId>(
  db: Kysely<Database>,
  table: T,
  size = 5000,
): AsyncGenerator<Selectable<Database[T]>[]> {
  // Kysely cannot type a select over a table chosen by a type parameter; the rows are the table's.
  const untyped = db as unknown as Kysely<Record<string, { id: number }>>;
  let afterId = 0;
  for (;;) {
    const rows = (await untyped
      .selectFrom(table)
      .selectAll()
      .where('id', '>', afterId as never)
      .orderBy('id')
      .limit(size)
      .execute()) as Selectable<Database[T]>[];
    if (rows.length > 0) yield rows;
    if (rows.length < size) return;
    afterId = (rows[rows.length - 1] as { id: number }).id;
  }
}
