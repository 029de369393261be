import type { Kysely, Transaction } from 'kysely';
import type { UpsertCounts } from '../shared/bulk.js';
import type { Dialect } from './dialect/types.js';
import { compiledOnce } from './compiled.js';
import type { Database } from './schema.js';

/** Resources whose tables bump a version on every change (triggers of migrations 0007 and 0009). */
export type VersionedResource = 'stores' | 'categories' | 'reason_codes' | 'products' | 'locations';

const selectVersion = compiledOnce((db, resource: string) =>
  db.selectFrom('resource_versions').select('version').where('resource', '=', resource),
);

/** Read on every list-cache hit: compiled once (db/compiled.ts). */
async function readVersion(db: Kysely<Database> | Transaction<Database>, resource: VersionedResource): Promise<number> {
  const [row] = await selectVersion(db, resource);
  return row ? Number(row.version) : -1;
}

/** One string naming the versions of several resources at once (one query). */
export async function readVersions(db: Kysely<Database>, resources: readonly VersionedResource[]): Promise<string> {
  const versions = await Promise.all(resources.map((resource) => readVersion(db, resource)));
  return versions.join(':');
}

/**
 * The identical-import shortcut (PRODUCT §3: re-sending an identical payload changes
 * nothing): when the body is byte-identical to the last import of the resource and no
 * change to the resource happened since, the answer is "unchanged" for every item.
 * Returns the item count of that import, or undefined when the shortcut does not apply.
 */
async function unchangedSinceLastImport(
  trx: Transaction<Database>,
  resource: VersionedResource,
  importHash: string,
): Promise<number | undefined> {
  const row = await trx
    .selectFrom('resource_versions')
    .select(['version', 'import_hash', 'import_version', 'import_count'])
    .where('resource', '=', resource)
    .executeTakeFirst();
  if (
    !row ||
    row.import_hash !== importHash ||
    row.import_version === null ||
    Number(row.import_version) !== Number(row.version)
  )
    return undefined;
  return Number(row.import_count);
}

/** Records the import just applied, at the version it left the resource at (same transaction). */
async function recordImport(
  trx: Transaction<Database>,
  resource: VersionedResource,
  importHash: string,
  itemCount: number,
): Promise<void> {
  const version = await readVersion(trx, resource);
  await trx
    .updateTable('resource_versions')
    .set({ import_hash: importHash, import_version: version, import_count: itemCount })
    .where('resource', '=', resource)
    .execute();
}

/** What makes two imports the same request: the exact body bytes and the flush flag. */
export function importFingerprint(bodyHash: string | undefined, flush: boolean): string | undefined {
  return bodyHash === undefined ? undefined : `${flush ? 'flush' : 'merge'}:${bodyHash}`;
}

/**
 * Runs a bulk import unless it is byte-identical to the last one and nothing changed since
 * (then every item is unchanged and nothing needs mapping, hashing or comparing); records
 * the import's fingerprint afterwards. Call inside the import's transaction.
 */
export async function importUnlessIdentical(
  trx: Transaction<Database>,
  dialect: Dialect,
  resource: VersionedResource,
  fingerprint: string | undefined,
  apply: () => Promise<UpsertCounts>,
): Promise<UpsertCounts> {
  // Hold the version row first (PostgreSQL; SQLite's write transaction already excludes
  // other writers): imports of one resource then run one after the other, so this one's
  // checks read what the one before committed (two category imports could otherwise each
  // pass their cycle check and together close a cycle), and no other writer can commit
  // between its comparison and the version it records.
  await dialect
    .lockForUpdate(trx.selectFrom('resource_versions').select('version').where('resource', '=', resource))
    .execute();
  if (fingerprint !== undefined) {
    const count = await unchangedSinceLastImport(trx, resource, fingerprint);
    if (count !== undefined) return { created: 0, updated: 0, unchanged: count, deleted: 0 };
  }
  const counts = await apply();
  if (fingerprint !== undefined)
    await recordImport(trx, resource, fingerprint, counts.created + counts.updated + counts.unchanged);
  return counts;
}
