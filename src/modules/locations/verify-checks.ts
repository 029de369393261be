import { rowBatches } from '../../db/batches.js';
import type { VerifyCheck, Violation } from '../../db/verify-types.js';
import { contentHash } from '../../shared/bulk.js';
import { storeNumbersById } from '../stores/repository.js';
import type { LocationRow } from './rows.js';

function tagsOf(text: string): string[] | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    return Array.isArray(parsed) && parsed.every((t) => typeof t === 'string') ? (parsed as string[]) : undefined;
  } catch {
    return undefined;
  }
}

const MAX_LISTED = 1000;

/**
 * Location invariants: the tags JSON is a list of distinct strings and location_tags (the
 * index jsonTag and search_text use) holds exactly those tags, in the location's store;
 * the default pool is 1–10; store_number is the store's; the content hash matches.
 */
export const LOCATION_CHECKS: VerifyCheck[] = [
  {
    name: 'locations',
    async run(handle) {
      const violations: Violation[] = [];
      const said = (row: LocationRow, what: string) =>
        violations.push({
          check: 'locations',
          detail: `location '${row.location_code}' of store '${row.store_number}' ${what}`,
        });
      for await (const rows of rowBatches(handle.db, 'locations')) {
        const stores = await storeNumbersById(
          handle.db,
          rows.map((r) => r.store_id),
        );
        const tagRows = await handle.db
          .selectFrom('location_tags')
          .selectAll()
          .where(
            'location_id',
            'in',
            rows.map((r) => r.id),
          )
          .execute();
        const indexed = new Map<number, Array<{ tag: string; store_id: number }>>();
        for (const tagRow of tagRows)
          indexed.set(tagRow.location_id, [...(indexed.get(tagRow.location_id) ?? []), tagRow]);
        for (const row of rows) {
          if (stores.get(row.store_id) !== row.store_number)
            said(row, `has store_number not matching store id ${row.store_id}`);
          if (row.default_stock_pool !== null && !(row.default_stock_pool >= 1 && row.default_stock_pool <= 10)) {
            said(row, `has default_stock_pool ${row.default_stock_pool} (1–10 expected)`);
          }
          const tags = tagsOf(row.tags);
          if (tags === undefined || new Set(tags).size !== tags.length) {
            said(row, 'has malformed tags (a JSON list of distinct strings expected)');
            continue;
          }
          const index = indexed.get(row.id) ?? [];
          const expected = [...tags].sort().join('\n');
          const actual = index
            .map((t) => t.tag)
            .sort()
            .join('\n');
          if (expected !== actual)
            said(row, `has location_tags [${index.map((t) => t.tag).join(', ')}] but tags ${row.tags}`);
          if (index.some((t) => t.store_id !== row.store_id)) said(row, 'has location_tags rows of another store');
          const content = {
            location_code: row.location_code,
            location_order: row.location_order,
            default_stock_pool: row.default_stock_pool,
            tags: row.tags,
          };
          if (contentHash(content) !== row.content_hash)
            said(row, 'has a content hash that does not match its content');
        }
      }
      const orphans = await handle.db
        .selectFrom('location_tags as t')
        .leftJoin('locations as l', 'l.id', 't.location_id')
        .select(['t.location_id', 't.tag'])
        .where('l.id', 'is', null)
        .limit(MAX_LISTED)
        .execute();
      for (const orphan of orphans) {
        violations.push({
          check: 'locations',
          detail: `location_tags row '${orphan.tag}' points at missing location ${orphan.location_id}`,
        });
      }
      return violations;
    },
  },
];
