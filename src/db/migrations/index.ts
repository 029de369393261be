import type { MigrationProvider } from 'kysely';
import { DialectMigrationProvider, type DialectMigration, type MigrationDialect } from './provider.js';
import * as foundation from './2026-11-22T0001_foundation.js';
import * as categoriesReasonCodes from './2026-11-22T0002_categories_reason_codes.js';
import * as products from './2026-11-22T0003_products.js';
import * as stock from './2026-11-22T0004_stock.js';
import * as stockReadIndexes from './2026-11-22T0006_stock_read_indexes.js';
import * as resourceVersions from './2026-11-22T0007_resource_versions.js';
import * as unresolvedCountingLines from './2026-11-22T0008_unresolved_counting_lines.js';
import * as stockReadVersions from './2026-11-22T0009_stock_read_versions.js';
import * as ledgerCountIndex from './2026-11-24T0010_ledger_count_index.js';
import * as deliveriesReceipts from './2026-11-24T0011_deliveries_receipts.js';
import * as customerOrders from './2026-11-25T0013_customer_orders.js';
import * as productLists from './2026-11-25T0014_product_lists.js';
import * as storeProductMembershipVersion from './2026-11-25T0015_store_product_membership_version.js';
import * as stockLogPartialIndexes from './2026-11-25T0016_stock_log_partial_indexes.js';
import * as stockVersionByEngine from './2026-11-26T0017_stock_version_by_engine.js';
import * as balanceLocationIndex from './2026-11-26T0018_balance_location_index.js';
import * as stockModifiedHot from './2026-11-27T0019_stock_modified_hot.js';
import * as stockLogHours from './2026-11-28T0020_stock_log_hours.js';
import * as ledgerByBalance from './2026-11-28T0021_ledger_by_balance.js';
import * as oneRowPerEntry from './2026-11-28T0022_one_row_per_entry.js';
import * as stockLogReviewPartial from './2026-11-28T0023_stock_log_review_partial.js';
import * as stockLogHoursHashJoin from './2026-11-28T0024_stock_log_hours_hash_join.js';
import * as ledgerByMonth from './2026-11-29T0025_ledger_by_month.js';
import * as changeFeed from './2026-11-29T0027_change_feed.js';
import * as storeMoveEvents from './2026-12-07T0028_store_move_events.js';
import * as ledgerArchive from './2026-11-29T0026_ledger_archive.js';
import * as oauthClients from './2026-12-07T0029_oauth_clients.js';
import * as stockMomentAtCreation from './2026-12-07T0030_stock_moment_at_creation.js';
import * as photos from './2026-12-08T0032_photos.js';
import * as countingAssignments from './2026-12-08T0033_counting_assignments.js';

/**
 * The explicit, ordered list of migrations. Names sort in time order; Kysely applies
 * the ones a database has not seen yet, in this order.
 */
const migrations: Record<string, DialectMigration> = {
  '2026-11-22T0001_foundation': foundation,
  '2026-11-22T0002_categories_reason_codes': categoriesReasonCodes,
  '2026-11-22T0003_products': products,
  '2026-11-22T0004_stock': stock,
  '2026-11-22T0006_stock_read_indexes': stockReadIndexes,
  '2026-11-22T0007_resource_versions': resourceVersions,
  '2026-11-22T0008_unresolved_counting_lines': unresolvedCountingLines,
  '2026-11-22T0009_stock_read_versions': stockReadVersions,
  '2026-11-24T0010_ledger_count_index': ledgerCountIndex,
  '2026-11-24T0011_deliveries_receipts': deliveriesReceipts,
  '2026-11-25T0013_customer_orders': customerOrders,
  '2026-11-25T0014_product_lists': productLists,
  '2026-11-25T0015_store_product_membership_version': storeProductMembershipVersion,
  '2026-11-25T0016_stock_log_partial_indexes': stockLogPartialIndexes,
  '2026-11-26T0017_stock_version_by_engine': stockVersionByEngine,
  '2026-11-26T0018_balance_location_index': balanceLocationIndex,
  '2026-11-27T0019_stock_modified_hot': stockModifiedHot,
  '2026-11-28T0020_stock_log_hours': stockLogHours,
  '2026-11-28T0021_ledger_by_balance': ledgerByBalance,
  '2026-11-28T0022_one_row_per_entry': oneRowPerEntry,
  '2026-11-28T0023_stock_log_review_partial': stockLogReviewPartial,
  '2026-11-28T0024_stock_log_hours_hash_join': stockLogHoursHashJoin,
  '2026-11-29T0025_ledger_by_month': ledgerByMonth,
  '2026-11-29T0026_ledger_archive': ledgerArchive,
  '2026-11-29T0027_change_feed': changeFeed,
  '2026-12-07T0028_store_move_events': storeMoveEvents,
  '2026-12-07T0029_oauth_clients': oauthClients,
  '2026-12-07T0030_stock_moment_at_creation': stockMomentAtCreation,
  '2026-12-08T0032_photos': photos,
  '2026-12-08T0033_counting_assignments': countingAssignments,
};

/** The migrations for a database of `dialect` (the handle's `dialect.name`), each handed that dialect. */
export function migrationProviderFor(dialect: MigrationDialect): MigrationProvider {
  return new DialectMigrationProvider(migrations, dialect);
}
