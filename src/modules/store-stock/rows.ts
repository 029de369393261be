// The rows this module's repository returns: mapping turns them into API shapes. The rows of
// the two Kysely-typed queries (StockListRow, SurroundingRow) are declared beside them in
// repository.ts, where their type is inferred.

export interface LocationInfo {
  location_code: string;
  location_order: number;
  default_stock_pool: number | null;
  /** JSON array of tags. */
  tags: string;
}

/** One balance of the product (thousandths); location_id 0 = booked without a location. */
export interface BalanceLine {
  location_id: number;
  pool: number;
  quantity: number;
  location?: LocationInfo;
}
