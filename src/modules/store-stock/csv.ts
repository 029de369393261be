/**
 * CSV as RFC 4180 writes it: records end in CRLF, fields are separated by commas, and a field
 * holding a comma, a double quote, CR or LF is enclosed in double quotes with its quotes
 * doubled. Numbers are written as the JSON answers write them (the shortest text that reads
 * back as the same number, never a locale's), so a figure in the file is the figure the API shows.
 *
 * Spreadsheets read a cell that starts with `=`, `+`, `-`, `@`, a tab or CR as a formula (CSV
 * injection): a text field that starts with one is written with a single quote in front, which a
 * spreadsheet shows as text. Numbers are never prefixed (a negative quantity stays a number), and
 * only text can carry a formula: product names, barcodes, codes and pool names come from master
 * data anyone with an integration token may write.
 */

/** A cell: text (guarded against formulas), a number (as JSON writes it), or nothing (an empty field). */
export type CsvCell = string | number | undefined;

const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

export function csvField(cell: CsvCell): string {
  if (cell === undefined) return '';
  if (typeof cell === 'number') return String(cell);
  const text = FORMULA_START.test(cell) ? `'${cell}` : cell;
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One record, its CRLF included. */
export const csvRecord = (cells: readonly CsvCell[]): string => `${cells.map(csvField).join(',')}\r\n`;
