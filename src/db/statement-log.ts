/**
 * Hears every SQL statement a database runs, by its text: `npm run sql` (test/sql/) records
 * what each flow of the service sends, so a change of any query shows in review. Nothing
 * listens in a running service; telling costs one WeakMap look-up per statement.
 */
const listeners = new WeakMap<object, (sqlText: string) => void>();

/** Starts (or with no listener, stops) hearing the statements of the database `db` opened. */
export function listenToStatements(db: object, listener?: (sqlText: string) => void): void {
  if (listener) listeners.set(db, listener);
  else listeners.delete(db);
}

/** Called by the dialects (Kysely's log) and by compiledOnce's direct reads, which bypass Kysely. */
export function statementRan(db: object, sqlText: string): void {
  listeners.get(db)?.(sqlText);
}
