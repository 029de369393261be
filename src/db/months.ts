/**
 * Calendar months in UTC, as epoch milliseconds: the ledger's partitions on PostgreSQL
 * (dialect/postgres-partitions.ts) and its archive boundaries (ledger/archive.ts) are months.
 */

/** First moment of the month holding `ms`. */
export function monthStart(ms: number): number {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
}

/** The first moment of the month `n` months after the one starting at `month` (n may be negative). */
export function addMonths(month: number, n: number): number {
  const d = new Date(month);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + n, 1);
}

/** `y2026m11`: how a month's partition and archived table are named. */
export function monthName(month: number): string {
  const d = new Date(month);
  return `y${d.getUTCFullYear()}m${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
}

/** `2026-11`: how an operator names a month. */
export function monthLabel(month: number): string {
  return new Date(month).toISOString().slice(0, 7);
}

/** The first moment of the month an operator names as `YYYY-MM`, or undefined. */
export function parseMonth(text: string): number | undefined {
  const match = /^(\d{4})-(\d{2})$/.exec(text.trim());
  if (!match) return undefined;
  const month = Number(match[2]);
  if (month < 1 || month > 12) return undefined;
  return Date.UTC(Number(match[1]), month - 1, 1);
}
