import type { AppContext } from './app-context.js';
import type { Config } from './config.js';
import type { DbHandle } from './db/dialect/types.js';
import { createLedger } from './ledger/ledger.js';
import { newStoreProductRow } from './modules/store-products/repository.js';
import type { CursorCodec } from './shared/cursor.js';
import { StockAnswerCache } from './shared/stock-answer-cache.js';

// Where the kernel is wired with the policies the modules lend it: above every module, so
// the context type (app-context.ts) that modules import stays free of them.
/** The one way to build a context: the app, `store-ops generate` and `seed` all use it. */
export function createAppContext(config: Config, handle: DbHandle, cursors: CursorCodec): AppContext {
  return {
    config,
    handle,
    db: handle.db,
    dialect: handle.dialect,
    ledger: createLedger(
      handle.dialect,
      { newStoreProduct: newStoreProductRow },
      config.benchWithoutStockEvents !== true,
    ),
    cursors,
    stockAnswers: new StockAnswerCache(),
  };
}
