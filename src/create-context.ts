import type { AppContext } from './app-context.js';
import type { Config } from './config.js';
import type { DbHandle } from './db/dialect/types.js';
import { createLedger } from './ledger/ledger.js';
import { LEDGER_POLICIES } from './ledger-policies.js';
import type { CursorCodec } from './shared/cursor.js';
import { StockAnswerCache } from './shared/stock-answer-cache.js';

// The kernel is wired here with the policies the modules lend it (ledger-policies.ts).
/** The one way to build a context: the app, `store-ops generate` and `seed` all use it. */
export function createAppContext(config: Config, handle: DbHandle, cursors: CursorCodec): AppContext {
  return {
    config,
    handle,
    db: handle.db,
    dialect: handle.dialect,
    ledger: createLedger(handle.dialect, LEDGER_POLICIES, config.benchWithoutStockEvents !== true),
    cursors,
    stockAnswers: new StockAnswerCache(),
  };
}
