/**
 * Strict ISO 8601 date-times (PRODUCT §3): a calendar date, a time, and `Z`, an offset or
 * neither — a value without a zone is read as UTC (the hosted service emits, and its
 * clients such as tap-colleqtive send back, `2026-06-15T06:30:24.557`). Week dates, a date
 * without a time and impossible dates (Feb 30) are refused rather than guessed. Stored as
 * epoch milliseconds, emitted as `YYYY-MM-DDTHH:mm:ss.sssZ` (always with its `Z`).
 */

/**
 * The moments a date-time may name once converted to UTC (PRODUCT §3): 0001-01-01 …
 * 9999-12-31, the years `YYYY-MM-DDTHH:mm:ss.sssZ` can show. Outside them JavaScript writes
 * `-000001-…` or `+010000-…`, so a value there is refused where it is parsed — every
 * date-time of every body and query goes through parseDateTime (the schemas' `date-time`
 * format, then the services' requireDateTime).
 */
export const MIN_DATE_TIME_MS = -62_135_596_800_000; // 0001-01-01T00:00:00.000Z
export const MAX_DATE_TIME_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/**
 * How far an event time may lie after the server's clock (PRODUCT §3 "no future events"):
 * handheld clocks drift, so a few minutes ahead is taken as now-ish; more is refused.
 */
export const EVENT_TIME_TOLERANCE_MS = 5 * 60_000;

const ISO_DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?([Zz]|([+-])(\d{2}):?(\d{2}))?$/;

export function parseDateTime(text: string): number | undefined {
  const m = ISO_DATE_TIME.exec(text);
  if (!m) return undefined;
  const year = +m[1]!;
  const month = +m[2]!;
  const day = +m[3]!;
  const hour = +m[4]!;
  const minute = +m[5]!;
  const second = m[6] === undefined ? 0 : +m[6];
  const millis = m[7] === undefined ? 0 : +m[7].slice(0, 3).padEnd(3, '0');
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return undefined;
  if (day > daysInMonth(year, month)) return undefined;
  let offsetMinutes = 0;
  if (m[9] !== undefined) {
    const offsetHours = +m[10]!;
    const offsetMins = +m[11]!;
    if (offsetHours > 23 || offsetMins > 59) return undefined;
    offsetMinutes = (offsetHours * 60 + offsetMins) * (m[9] === '-' ? -1 : 1);
  }
  const utc = utcMillis(year, month, day, hour, minute, second, millis) - offsetMinutes * 60_000;
  // NaN fails both comparisons too.
  return utc >= MIN_DATE_TIME_MS && utc <= MAX_DATE_TIME_MS ? utc : undefined;
}

/**
 * Whether an event at `at` (epoch ms) lies further in the future than clock drift explains:
 * more than EVENT_TIME_TOLERANCE_MS after `now`, the server's clock when the request is
 * validated (PRODUCT §3). Used by the `eventTime` schema keyword (shared/validation.ts).
 */
export function isFutureEvent(at: number, now: number = Date.now()): boolean {
  return at > now + EVENT_TIME_TOLERANCE_MS;
}

function utcMillis(
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  second: number,
  millis: number,
): number {
  // Every date of a stock post goes through here (twice: validation, then booking), so the
  // common case is one Date.UTC call. Date.UTC reads years 0–99 as 1900–1999;
  // setUTCFullYear takes the year as written.
  if (year >= 100) return Date.UTC(year, month - 1, day, hour, minute, second, millis);
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, millis);
  return date.getTime();
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysInMonth(year: number, month: number): number {
  if (month !== 2) return DAYS_IN_MONTH[month - 1]!;
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return leap ? 29 : 28;
}

export function isDateTime(text: string): boolean {
  return parseDateTime(text) !== undefined;
}

/**
 * `YYYY-MM-DDTHH:mm:ss.sssZ`, always: a moment stored outside 0001–9999 (only possible for
 * rows written before parsing refused such values) is shown as the nearest bound instead of
 * `+010000-…`, and nothing read can make this throw.
 */
export function formatDateTime(epochMillis: number): string {
  if (epochMillis >= MIN_DATE_TIME_MS && epochMillis <= MAX_DATE_TIME_MS) return new Date(epochMillis).toISOString();
  return new Date(epochMillis < MIN_DATE_TIME_MS ? MIN_DATE_TIME_MS : MAX_DATE_TIME_MS).toISOString();
}

export function formatOptionalDateTime(epochMillis: number | null | undefined): string | undefined {
  return epochMillis === null || epochMillis === undefined ? undefined : formatDateTime(epochMillis);
}

/** For values already validated by the schema's date-time format. */
export function requireDateTime(text: string): number {
  const parsed = parseDateTime(text);
  if (parsed === undefined) throw new RangeError(`Not an ISO 8601 date-time: ${text}`);
  return parsed;
}

const DAY_MS = 86_400_000;

/**
 * The UTC day a list filter names (`pickup_date`, `delivery_date`): a day `YYYY-MM-DD`, or a
 * date-time meaning its UTC day. [from, to) in epoch ms; undefined when it is neither.
 */
export function utcDayOf(text: string): { from: number; to: number } | undefined {
  const at = /^\d{4}-\d{2}-\d{2}$/.test(text) ? parseDateTime(`${text}T00:00:00Z`) : parseDateTime(text);
  if (at === undefined) return undefined;
  const from = at - (((at % DAY_MS) + DAY_MS) % DAY_MS);
  return { from, to: from + DAY_MS };
}
