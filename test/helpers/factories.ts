/** Minimal valid records; tests spread overrides over them. */
export function storeInput(storeNumber: string, overrides: Record<string, unknown> = {}) {
  return {
    store_number: storeNumber,
    store_name: `Store ${storeNumber}`,
    is_active: true,
    is_active_data_exchange: true,
    is_warehouse: false,
    ...overrides,
  };
}

export function categoryInput(categoryCode: string, overrides: Record<string, unknown> = {}) {
  return {
    category_code: categoryCode,
    category_name: `Category ${categoryCode}`,
    is_adjust_min_max: false,
    is_markdown: false,
    ...overrides,
  };
}

/** Every field §4.5 requires, as a plain code with no sign, review or flags. */
export function reasonCodeInput(reasonCode: number, overrides: Record<string, unknown> = {}) {
  return {
    reason_code: reasonCode,
    reason_code_description: `Reason ${reasonCode}`,
    reason_code_type: 1,
    default_review_status: 0,
    is_comment_mandatory: false,
    is_gain: false,
    is_image_mandatory: false,
    is_loss: false,
    is_order_number_mandatory: false,
    is_picking_list: false,
    is_sales_order_discount: false,
    is_store: false,
    ...overrides,
  };
}

/**
 * A database that outlives one app, for restart tests: a temporary SQLite file, or a
 * PostgreSQL schema (dropped by the dialect's cleanup). Pass it as `databaseUrl`.
 */
export async function restartableDatabaseUrl(dialect: { name: string; freshDatabaseUrl(): Promise<string> }): Promise<string> {
  if (dialect.name !== 'sqlite') return dialect.freshDatabaseUrl();
  const { mkdtempSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  return `sqlite:${join(mkdtempSync(join(tmpdir(), 'store-ops-test-')), 'db.sqlite')}`;
}
