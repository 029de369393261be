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
