import type { Kysely } from 'kysely';
import type { Config } from './config.js';
import type { DbHandle, Dialect } from './db/dialect/types.js';
import type { Database } from './db/schema.js';
import type { StockAnswerCache } from './shared/stock-answer-cache.js';
import type { Ledger } from './ledger/ledger.js';
import type { CursorCodec } from './shared/cursor.js';

/** What services need from the running app: the database, its dialect helpers, cursors, read caches. */
export interface AppContext {
  readonly config: Config;
  readonly handle: DbHandle;
  readonly db: Kysely<Database>;
  readonly dialect: Dialect;
  /** The stock kernel, wired with the policies the modules lend it (ledger/ledger.ts). */
  readonly ledger: Ledger;
  readonly cursors: CursorCodec;
  /** This process's cache of single-product stock answers (answer-cache.ts). */
  readonly stockAnswers: StockAnswerCache;
}
