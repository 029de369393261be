import type { AppContext } from '../../app-context.js';
import { upsertByKey } from '../../db/bulk-upsert.js';
import { inTransaction } from '../../db/transaction.js';
import { importFingerprint, importUnlessIdentical } from '../../db/versions.js';
import { listScope, type Principal } from '../../shared/access.js';
import { describeCounts, duplicateKeyErrors } from '../../shared/bulk.js';
import { validationFailed } from '../../shared/errors.js';
import { pagedResponse, resolvePage, type PagedResult } from '../../shared/paging.js';
import * as stores from './repository.js';
import { toStore, toStoreRecord } from './mapping.js';
import { StoresQuery, type Store, type StoresBody } from './schema.js';

/** POST /stores: bulk upsert by store_number, atomic, with flush (PRODUCT §3). */
export async function importStores(
  ctx: AppContext,
  body: StoresBody,
  flush: boolean,
  actor: string,
  bodyHash?: string,
): Promise<string> {
  const duplicates = duplicateKeyErrors(body.stores, (s) => s.store_number, 'stores', 'store_number');
  if (duplicates.length > 0) throw validationFailed('A store_number appears more than once in the request', duplicates);
  const counts = await inTransaction(
    ctx.handle,
    (trx) =>
      importUnlessIdentical(trx, ctx.dialect, 'stores', importFingerprint(bodyHash, flush), () =>
        upsertByKey(trx, ctx.dialect, {
          table: 'stores',
          keyColumn: 'store_number',
          records: body.stores.map(toStoreRecord),
          actor,
          now: Date.now(),
          flush,
        }),
      ),
    { serialise: ['stores'] },
  );
  return describeCounts(counts);
}

/** GET /stores (interface §4.7): paged, filtered, store tokens see only their stores. */
export async function listStores(
  ctx: AppContext,
  query: StoresQuery,
  principal: Principal,
): Promise<PagedResult<Store>> {
  const window = resolvePage(query, StoresQuery, 'stores', ctx.cursors);
  const storeFilters: stores.StoreFilters = {
    isWarehouse: query.is_warehouse,
    searchText: query.search_text,
    secondaryKey: query.secondary_key,
    scope: listScope(principal),
  };
  const [rows, totalCount, lastModified] = await Promise.all([
    stores.pageOfStores(ctx.db, ctx.dialect, storeFilters, window),
    stores.countStores(ctx.db, ctx.dialect, storeFilters),
    stores.storesLastModified(ctx.db, storeFilters),
  ]);
  return pagedResponse({
    window,
    rows,
    idOf: (row) => row.id,
    toItem: toStore,
    totalCount,
    lastModified,
    cursors: ctx.cursors,
  });
}
