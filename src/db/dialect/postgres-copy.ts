import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';

/**
 * Bulk loading on PostgreSQL (DbHandle.bulkLoad): `COPY … FROM STDIN` in text format, the
 * fastest way PostgreSQL takes rows — no statement per row, no parameters to bind. Used by
 * `store-ops generate` (issue 28) to write a chain of millions of rows in minutes.
 */

/** A value in COPY's text format: `\N` for null, backslash escapes for the separators. */
function copyText(value: unknown): string {
  if (value === null || value === undefined) return '\\N';
  const text = typeof value === 'string' ? value : String(value);
  return /[\\\t\n\r]/.test(text)
    ? text.replace(/[\\\t\n\r]/g, (c) => (c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r'))
    : text;
}

const CHUNK_ROWS = 2_000;

/** Streams `rows` into `table` with one COPY; with an `id` column, moves the id sequence past the largest id. */
export async function copyRows(
  client: pg.ClientBase,
  table: string,
  columns: readonly string[],
  rows: ReadonlyArray<readonly unknown[]>,
): Promise<void> {
  if (rows.length === 0) return;
  const quoted = columns.map((c) => `"${c}"`).join(', ');
  const stream = client.query(copyFrom(`copy "${table}" (${quoted}) from stdin`));
  const done = new Promise<void>((resolve, reject) => {
    stream.on('finish', resolve);
    stream.on('error', reject);
  });
  for (let start = 0; start < rows.length; start += CHUNK_ROWS) {
    let chunk = '';
    for (const row of rows.slice(start, start + CHUNK_ROWS)) chunk += `${row.map(copyText).join('\t')}\n`;
    // Respect back-pressure: a chain's batch must not pile up in memory.
    if (!stream.write(chunk)) await new Promise<void>((resolve) => stream.once('drain', resolve));
  }
  stream.end();
  await done;
  if (columns.includes('id')) {
    await client.query(
      `select setval(pg_get_serial_sequence($1, 'id'), greatest((select max(id) from "${table}"), 1))`,
      [table],
    );
  }
}
