import type { pageOfStockList, surroundingBalances } from './repository.js';

// The rows this module's repository returns, in one place: mapping turns them into API shapes.

export type StockListRow = Awaited<ReturnType<typeof pageOfStockList>>[number];

export type SurroundingRow = Awaited<ReturnType<typeof surroundingBalances>>[number];
