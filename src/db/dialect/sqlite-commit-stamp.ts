import fs from 'node:fs';
import os from 'node:os';
import type SqliteDatabase from 'better-sqlite3';

/** The WAL-index header: two copies of 48 bytes at the start of the `-shm` file. */
const HEADER_BYTES = 48;
/** Byte of the header that is 1 once a connection has initialised it. */
const IS_INIT_OFFSET = 12;
/** The header's first field, in the machine's byte order: the only WAL-index version there has been (3.7.0 on). */
const WAL_INDEX_VERSION = 3007000;
const readVersion =
  os.endianness() === 'LE' ? (header: Buffer) => header.readUInt32LE(0) : (header: Buffer) => header.readUInt32BE(0);
/** Tries of a consistent header before asking SQLite instead (a writer was mid-update). */
const HEADER_TRIES = 3;

/**
 * A text that changes with every commit to the database by any connection of any process:
 * the change token's part for other writers (DbHandle.changeToken; its own writes are
 * counted by the connection).
 *
 * `PRAGMA data_version` answers that, but it opens and ends a read transaction each time:
 * two file-lock calls on the `-shm` file and SQLite's read-transaction bookkeeping, ~1.9 µs
 * in a loop, on every cached read. In WAL mode SQLite keeps the same fact in the WAL-index
 * header at the start of the shared `-shm` file, which every process maps: each commit
 * rewrites it with its `iChange` counter incremented (SQLite's "WAL-index format",
 * walformat.html). One `pread` of that header (~1.1 µs) is the stamp: equal bytes, no commit
 * in between. The layout is checked by the header's version field. A writer writes the
 * second copy, then the first; reading both and requiring them equal is how SQLite's own
 * readers detect a header caught mid-update — we then ask `data_version` instead, as we do
 * for an in-memory database, any journal mode other than WAL, or a `-shm` file we cannot
 * open. Stamps of the two kinds never look alike (`v…` against 48 raw bytes whose first is
 * never `v`), so a switch between them reads as a change.
 */
export function commitStamp(
  database: SqliteDatabase.Database,
  file: string,
): { read: () => string; close: () => void } {
  const dataVersion = database.prepare('pragma data_version').pluck();
  const askSqlite = () => `v${dataVersion.get() as number}`;
  const walMode =
    file !== ':memory:' && String(database.pragma('journal_mode', { simple: true })).toLowerCase() === 'wal';
  if (!walMode) return { read: askSqlite, close: () => undefined };

  const header = Buffer.alloc(2 * HEADER_BYTES);
  let shm: number | undefined;
  let unavailable = false;
  const readHeader = (): string | undefined => {
    if (unavailable) return undefined;
    if (shm === undefined) {
      askSqlite(); // a read transaction: the -shm file exists and its header is initialised
      try {
        shm = fs.openSync(`${file}-shm`, 'r');
      } catch {
        unavailable = true;
        return undefined;
      }
    }
    for (let attempt = 0; attempt < HEADER_TRIES; attempt++) {
      const bytes = fs.readSync(shm, header, 0, header.length, 0);
      const consistent =
        bytes === header.length && header.compare(header, HEADER_BYTES, 2 * HEADER_BYTES, 0, HEADER_BYTES) === 0;
      if (!consistent || header[IS_INIT_OFFSET] !== 1) continue;
      // Another layout than the one this reads: never guess, ask SQLite from now on.
      if (readVersion(header) !== WAL_INDEX_VERSION) {
        unavailable = true;
        return undefined;
      }
      return header.toString('latin1', 0, HEADER_BYTES);
    }
    return undefined;
  };
  return {
    read: () => readHeader() ?? askSqlite(),
    close: () => {
      if (shm !== undefined) fs.closeSync(shm);
      shm = undefined;
    },
  };
}
