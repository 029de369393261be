import { sql, type Transaction } from 'kysely';
import { chunk, type UpsertCounts } from '../shared/bulk.js';
import type { Dialect } from './dialect/types.js';
import { insertMany } from './insert-many.js';
import type { AuditColumns, Database } from './schema.js';
import { valuesOf } from '../shared/column-access.js';

/** Tables whose records are master data upserted by a natural key, with audit columns. */
export type UpsertTable = {
  [T in keyof Database]: Database[T] extends AuditColumns ? T : never;
}[keyof Database];

export interface UpsertSpec {
  table: UpsertTable;
  /** Natural-key column (store_number, product_number, …), unique in the table (or within `scope`). */
  keyColumn: string;
  /**
   * Owner the key is unique within (locations: location_code per store_id): existing rows,
   * the conflict target and a flush are limited to it. Records carry the scope column.
   */
  scope?: { column: string; value: number | string };
  /** Records with every column but id and the audit columns; each carries content_hash. */
  records: Array<Record<string, unknown> & { content_hash: string }>;
  actor: string;
  now: number;
  /** Soft-delete live records absent from `records` (PRODUCT §3 flush). */
  flush: boolean;
}

export interface UpsertResult extends UpsertCounts {
  /** Internal id of every record sent, by natural key. */
  idsByKey: Map<string, number>;
  /** Natural keys of records created or changed (child tables follow these). */
  writtenKeys: Set<string>;
}

interface ExistingRow {
  id: number;
  key: string;
  content_hash: string;
  deleted_on: number | null;
}

/**
 * Bulk upsert by natural key (PRODUCT §3 Upserts). A record whose content hash is
 * unchanged (and which is live) is not written at all, so an identical re-send leaves
 * `updated_on` alone; a soft-deleted record sent again is restored. New and changed
 * records go out as multi-row `insert … on conflict do update` statements.
 */
export async function upsertByKey(trx: Transaction<Database>, dialect: Dialect, spec: UpsertSpec): Promise<UpsertResult> {
  // Loose typing inside: the table is chosen at run time, the callers' records are typed.
  const db = trx as unknown as Transaction<any>;
  const keys = spec.records.map((r) => String(r[spec.keyColumn]));
  const existing = new Map<string, ExistingRow>();
  for (const keyChunk of chunk(keys, Math.floor(dialect.maxParameters / 2))) {
    const rows: ExistingRow[] = await db
      .selectFrom(spec.table)
      .select(['id', sql.ref<string>(spec.keyColumn).as('key'), 'content_hash', 'deleted_on'])
      .where(spec.keyColumn, 'in', keyChunk)
      .$if(spec.scope !== undefined, (q: any) => q.where(spec.scope!.column, '=', spec.scope!.value))
      .execute();
    // String(): a numeric key column (reason_code) reads back as a number; keys compare as text.
    for (const row of rows) existing.set(String(row.key), row);
  }

  const result: UpsertResult = { created: 0, updated: 0, unchanged: 0, deleted: 0, idsByKey: new Map(), writtenKeys: new Set() };
  const toWrite: Array<Record<string, unknown>> = [];
  for (const record of spec.records) {
    const key = String(record[spec.keyColumn]);
    const current = existing.get(key);
    if (current && current.content_hash === record.content_hash && current.deleted_on === null) {
      result.unchanged++;
      result.idsByKey.set(key, current.id);
      continue;
    }
    if (current) result.updated++;
    else result.created++;
    result.writtenKeys.add(key);
    toWrite.push(record);
  }

  if (toWrite.length > 0) {
    // Rows go out as value arrays through insertMany (statement text built once per shape,
    // kept prepared on PostgreSQL) rather than Kysely's per-value query tree: for 10,000
    // products of ~95 columns that tree was most of the import's garbage and a tenth of its time.
    const recordColumns = columnsOf(toWrite);
    const columns = [...recordColumns, 'created_on', 'updated_on', 'created_by', 'modified_by', 'deleted_on'];
    const conflictColumns = spec.scope ? [spec.scope.column, spec.keyColumn] : [spec.keyColumn];
    const updatable = columns.filter((c) => !conflictColumns.includes(c) && c !== 'created_on' && c !== 'created_by');
    const valuesOfRecord = valuesOf(recordColumns);
    const rows = toWrite.map((record) => {
      const row = valuesOfRecord(record);
      row.push(spec.now, spec.now, spec.actor, spec.actor, null);
      return row;
    });
    const suffix =
      `on conflict (${conflictColumns.map(quoted).join(', ')}) do update set ` +
      `${updatable.map((c) => `${quoted(c)} = excluded.${quoted(c)}`).join(', ')} returning id, ${quoted(spec.keyColumn)} as key`;
    const written = await insertMany<{ id: number; key: string }>(trx, dialect, spec.table, columns, rows, suffix);
    for (const row of written) result.idsByKey.set(String(row.key), Number(row.id));
  }

  if (spec.flush) result.deleted = await softDeleteAbsent(db, spec, new Set(keys));
  return result;
}

const quoted = (column: string) => `"${column}"`;

/** Every column any record names, in first-seen order (records of one import share one shape). */
function columnsOf(records: ReadonlyArray<Record<string, unknown>>): string[] {
  const seen = new Set<string>();
  for (const record of records) for (const column of Object.keys(record)) seen.add(column);
  return [...seen];
}

async function softDeleteAbsent(db: Transaction<any>, spec: UpsertSpec, keep: Set<string>): Promise<number> {
  const live: Array<{ id: number; key: string }> = await db
    .selectFrom(spec.table)
    .select(['id', sql.ref<string>(spec.keyColumn).as('key')])
    .where('deleted_on', 'is', null)
    .$if(spec.scope !== undefined, (q: any) => q.where(spec.scope!.column, '=', spec.scope!.value))
    .execute();
  const absentIds = live.filter((row) => !keep.has(String(row.key))).map((row) => row.id);
  for (const ids of chunk(absentIds, 10_000)) {
    await db
      .updateTable(spec.table)
      .set({ deleted_on: spec.now, updated_on: spec.now, modified_by: spec.actor })
      .where('id', 'in', ids)
      .execute();
  }
  return absentIds.length;
}
