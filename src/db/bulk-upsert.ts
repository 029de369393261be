import { sql, type Transaction } from 'kysely';
import { chunk, type UpsertCounts } from '../shared/bulk.js';
import type { Dialect } from './dialect/types.js';
import { insertMany } from './insert-many.js';
import type { AuditColumns, Database } from './schema.js';
import { valuesOf } from '../shared/column-access.js';
import { serialiseWriters, type WriterResource } from './transaction.js';

/** Tables whose records are master data upserted by a natural key, with audit columns. */
export type UpsertTable = {
  [T in keyof Database]: Database[T] extends AuditColumns ? T : never;
}[keyof Database];

/** A record as upsertByKey takes it: every column but id, the audit and the derived ones, and its content hash. */
export type UpsertRecord = Record<string, unknown> & { content_hash: string };

/** The stored row of a record's key, as the upsert read it: what it decides on, plus `S`. */
export type StoredRow<S extends object = object> = ExistingRow & S;

/** A record the upsert writes (new, changed or restored), its position in `records`, and its stored row. */
export interface WrittenRecord<R extends UpsertRecord = UpsertRecord, S extends object = object> {
  index: number;
  record: R;
  stored: StoredRow<S> | undefined;
}

export interface UpsertSpec<R extends UpsertRecord = UpsertRecord, S extends object = object> {
  table: UpsertTable;
  /** Natural-key column (store_number, product_number, …), unique in the table (or within `scope`). */
  keyColumn: string;
  /**
   * Owner the key is unique within (locations: location_code per store_id): existing rows,
   * the conflict target and a flush are limited to it. Records carry the scope column.
   */
  scope?: { column: string; value: number };
  /** Records with every column but id, the audit columns and the `derived` ones; each carries content_hash. */
  records: R[];
  actor: string;
  now: number;
  /** Soft-delete live records absent from `records` (PRODUCT §3 flush). */
  flush: boolean;
  /** Stored columns `derived` and `beforeWrite` need besides id, content_hash and deleted_on. */
  storedColumns?: ReadonlyArray<keyof S & string>;
  /**
   * Columns computed only for the records that are written, from the record and its stored
   * row as this upsert read it (products: old_price, read_document). Every written row gets
   * them from the very read that decided to write it: none can be missing or stale.
   */
  derived?: { columns: readonly string[]; values(record: R, stored: StoredRow<S> | undefined): unknown[] };
  /** Runs once, after the decision and before any write, with the records to be written: may refuse the import (throw). */
  beforeWrite?(written: ReadonlyArray<WrittenRecord<R, S>>): Promise<void>;
}

export interface UpsertResult<R extends UpsertRecord = UpsertRecord, S extends object = object> extends UpsertCounts {
  /** Internal id of every record sent, by natural key. */
  idsByKey: Map<string, number>;
  /** Natural keys of records created or changed (child tables follow these). */
  writtenKeys: Set<string>;
  /** The records created, changed or restored, in request order, with their stored rows as read. */
  written: Array<WrittenRecord<R, S>>;
}

interface ExistingRow {
  id: number;
  key: string;
  content_hash: string;
  deleted_on: number | null;
}

/** What serialiseWriters calls the resource of an upsert: its table, within its scope's owner. */
export function upsertResource(spec: Pick<UpsertSpec, 'table' | 'scope'>): WriterResource {
  return spec.scope === undefined ? spec.table : `${spec.table}:${spec.scope.value}`;
}

/**
 * Bulk upsert by natural key (PRODUCT §3 Upserts). A record whose content hash is
 * unchanged (and which is live) is not written at all, so an identical re-send leaves
 * `updated_on` alone; a soft-deleted record sent again is restored. New and changed
 * records go out as multi-row `insert … on conflict do update` statements.
 *
 * Writers of the table (within the scope) take turns (serialiseWriters, issue 26): the
 * read that decides what to write and the write see one state, even with another import of
 * the same records running, so an overlapping ERP job is never a 500 or a 409. A caller
 * that reads the resource before calling this takes the turn at the start of its
 * transaction (inTransaction `serialise`); here it is then free.
 */
export async function upsertByKey<R extends UpsertRecord, S extends object = object>(
  trx: Transaction<Database>,
  dialect: Dialect,
  spec: UpsertSpec<R, S>,
): Promise<UpsertResult<R, S>> {
  await serialiseWriters(trx, dialect, [upsertResource(spec)]);
  // Loose typing inside: the table is chosen at run time, the callers' records are typed.
  const db = trx as unknown as Transaction<any>;
  const keys = spec.records.map((r) => String(r[spec.keyColumn]));
  const existing = new Map<string, StoredRow<S>>();
  const selected = [
    'id',
    sql.ref<string>(spec.keyColumn).as('key'),
    'content_hash',
    'deleted_on',
    ...(spec.storedColumns ?? []),
  ];
  for (const keyChunk of chunk(keys, Math.floor(dialect.maxParameters / 2))) {
    const rows = (await db
      .selectFrom(spec.table)
      .select(selected)
      .where(spec.keyColumn, 'in', keyChunk)
      .$if(spec.scope !== undefined, (q: any) => q.where(spec.scope!.column, '=', spec.scope!.value))
      .execute()) as Array<StoredRow<S>>;
    // String(): a numeric key column (reason_code) reads back as a number; keys compare as text.
    for (const row of rows) existing.set(String(row.key), row);
  }

  const result: UpsertResult<R, S> = {
    created: 0,
    updated: 0,
    unchanged: 0,
    deleted: 0,
    idsByKey: new Map(),
    writtenKeys: new Set(),
    written: [],
  };
  spec.records.forEach((record, index) => {
    const key = keys[index]!;
    const stored = existing.get(key);
    if (stored && stored.content_hash === record.content_hash && stored.deleted_on === null) {
      result.unchanged++;
      result.idsByKey.set(key, stored.id);
      return;
    }
    if (stored) result.updated++;
    else result.created++;
    result.writtenKeys.add(key);
    result.written.push({ index, record, stored });
  });
  if (spec.beforeWrite && result.written.length > 0) await spec.beforeWrite(result.written);

  if (result.written.length > 0) {
    // Rows go out as value arrays through insertMany (statement text built once per shape,
    // kept prepared on PostgreSQL) rather than Kysely's per-value query tree: for 10,000
    // products of ~95 columns that tree was most of the import's garbage and a tenth of its time.
    const derived = spec.derived;
    const derivedColumns = derived?.columns ?? [];
    const recordColumns = columnsOf(result.written).filter((c) => !derivedColumns.includes(c));
    const columns = [
      ...recordColumns,
      ...derivedColumns,
      'created_on',
      'updated_on',
      'created_by',
      'modified_by',
      'deleted_on',
    ];
    const conflictColumns = spec.scope ? [spec.scope.column, spec.keyColumn] : [spec.keyColumn];
    const updatable = columns.filter((c) => !conflictColumns.includes(c) && c !== 'created_on' && c !== 'created_by');
    const valuesOfRecord = valuesOf(recordColumns);
    const rows = result.written.map(({ record, stored }) => {
      const row = valuesOfRecord(record);
      if (derived) {
        const values = derived.values(record, stored);
        if (values.length !== derivedColumns.length)
          throw new Error(`${spec.table}: ${values.length} derived values for ${derivedColumns.length} columns`);
        for (const value of values) row.push(value ?? null);
      }
      row.push(spec.now, spec.now, spec.actor, spec.actor, null);
      return row;
    });
    const suffix =
      `on conflict (${conflictColumns.map(quoted).join(', ')}) do update set ` +
      `${updatable.map((c) => `${quoted(c)} = excluded.${quoted(c)}`).join(', ')} returning id, ${quoted(spec.keyColumn)} as key`;
    const returned = await insertMany<{ id: number; key: string }>(trx, dialect, spec.table, columns, rows, suffix);
    for (const row of returned) result.idsByKey.set(String(row.key), Number(row.id));
  }

  if (spec.flush) result.deleted = await softDeleteAbsent(db, spec, new Set(keys));
  return result;
}

const quoted = (column: string) => `"${column}"`;

/** Every column any written record names, in first-seen order (records of one import share one shape). */
function columnsOf(written: ReadonlyArray<{ record: UpsertRecord }>): string[] {
  const seen = new Set<string>();
  for (const { record } of written) for (const column of Object.keys(record)) seen.add(column);
  return [...seen];
}

async function softDeleteAbsent(db: Transaction<any>, spec: UpsertSpec<any, any>, keep: Set<string>): Promise<number> {
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
