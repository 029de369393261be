/**
 * Hears every SQL statement a database runs, with its parameters: `npm run sql` (test/sql/)
 * records what each flow of the service sends, so a change of any query shows in review, and
 * `npm run bench -- plans` explains each at chain scale. Nothing
 * listens in a running service; telling costs one WeakMap look-up per statement.
 */
export type StatementListener = (sqlText: string, parameters: readonly unknown[]) => void;

const listeners = new WeakMap<object, StatementListener>();

/** Starts (or with no listener, stops) hearing the statements of the database `db` opened. */
export function listenToStatements(db: object, listener?: StatementListener): void {
  if (listener) listeners.set(db, listener);
  else listeners.delete(db);
}

/** Called by the dialects (Kysely's log) and by compiledOnce's direct reads, which bypass Kysely. */
export function statementRan(db: object, sqlText: string, parameters: readonly unknown[]): void {
  listeners.get(db)?.(sqlText, parameters);
}
