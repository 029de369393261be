import type {
  KyselyPlugin,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryResult,
  RootOperationNode,
  UnknownRow,
} from 'kysely';

/**
 * The end of a shutdown's grace for work still running (issue 40, docs/operations.md
 * "Stopping"): once a database is cut, every statement built on it from then on throws
 * `ShutdownCut` instead of running, so a long request (a 10,000-line import, an ERP page)
 * stops between two statements, its transaction rolls back whole and the client is told
 * 503 UNAVAILABLE with Retry-After (plugins/error-handler.ts). Statements already sent finish.
 */
export class ShutdownCut extends Error {
  constructor() {
    super('the service is shutting down: the request was cut before it finished, and nothing of it was applied');
    this.name = 'ShutdownCut';
  }
}

const cut = new WeakSet<object>();

/** From now on every statement built on `db` (and its transactions) throws ShutdownCut. */
export function cutStatements(db: object): void {
  cut.add(db);
}

/** Statements run again on `db` (tests that cut a request and then look at what it left). */
export function uncutStatements(db: object): void {
  cut.delete(db);
}

/** The plugin each database's Kysely is built with; `db` names that Kysely (read when a statement is built). */
export function shutdownCutPlugin(db: () => object): KyselyPlugin {
  return {
    transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
      if (cut.has(db())) throw new ShutdownCut();
      return args.node;
    },
    async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
      return args.result;
    },
  };
}
