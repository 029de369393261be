import type { QuantityKind, TimeKind } from './actions.js';
import { parseDateTime } from '../../src/domain/datetime.js';
import { addMonths, monthStart } from '../../src/db/months.js';

/** PRODUCT §3: an event may lie at most 5 minutes after the server's clock (handheld clocks drift). */
export const FUTURE_TOLERANCE_MS = 5 * 60_000;

export interface ResolvedTime {
  text: string;
  /** Epoch ms when the service must accept it; null when it must refuse it (400). */
  at: number | null;
}

/** The text a client sends for a kind of time, and whether the time rule admits it. */
export function resolveTime(time: TimeKind, now: number): ResolvedTime {
  switch (time.kind) {
    case 'past': {
      const at = now - time.minutes * 60_000 - time.ms;
      return { text: new Date(at).toISOString(), at };
    }
    case 'now':
      return { text: new Date(now).toISOString(), at: now };
    case 'soon': {
      const at = now + time.seconds * 1000;
      // Written with an offset, as a handheld in another zone sends it.
      return { text: withOffset(at, 120), at };
    }
    case 'future':
      return { text: new Date(now + time.minutes * 60_000).toISOString(), at: null };
    case 'far':
      return { text: '2099-06-01T08:00:00Z', at: null };
    case 'year10000':
      // A valid-looking local time that is past year 9999 once converted to UTC.
      return { text: '9999-12-31T23:30:00-01:00', at: null };
    case 'year0':
      return { text: '0001-01-01T00:30:00+01:00', at: null };
    case 'archived': {
      // Valid by the time rule: whether it books depends on the chain's archive (model.archiveBoundary).
      const at = addMonths(monthStart(now), -1) - time.days * 86_400_000 - 1000;
      return { text: new Date(at).toISOString(), at };
    }
  }
}

function withOffset(at: number, offsetMinutes: number): string {
  const local = new Date(at + offsetMinutes * 60_000).toISOString().slice(0, 23);
  const hours = String(Math.floor(offsetMinutes / 60)).padStart(2, '0');
  const minutes = String(offsetMinutes % 60).padStart(2, '0');
  return `${local}+${hours}:${minutes}`;
}

/** The quantity a client sends, as a JSON number, and its exact thousandths. */
export function resolveQuantity(quantity: QuantityKind): { value: number; milli: bigint } {
  switch (quantity.kind) {
    case 'small':
      return { value: quantity.value, milli: BigInt(Math.round(quantity.value * 1000)) };
    case 'extreme':
      return { value: quantity.sign * 999_999_999_999, milli: BigInt(quantity.sign) * 999_999_999_999_000n };
    case 'tiny':
      return { value: 0.001, milli: 1n };
  }
}

export const toNumber = (milli: bigint) => Number(milli) / 1000;

/**
 * The ways a client may spell a date-time again (issue 40 item 1): the first four are the same
 * instant — `Z` without the milliseconds (when they are 0, else with them), `+01:00`, `-0530`,
 * no zone at all (read as UTC, PRODUCT §3) — and the last is another instant: 1 ms earlier
 * (never later: that could cross the future-event rule, a 400 of the schema before any key).
 */
export const DATE_TIME_SPELLINGS = 5;
export const ANOTHER_INSTANT = DATE_TIME_SPELLINGS - 1;

/** `text` spelt the `spelling` way (DATE_TIME_SPELLINGS); undefined when it is no valid date-time (left as it is). */
export function respellDateTime(text: string, spelling: number): string | undefined {
  const at = parseDateTime(text);
  if (at === undefined) return undefined;
  const utc = new Date(at).toISOString();
  switch (spelling) {
    case 0:
      return utc.endsWith('.000Z') ? `${utc.slice(0, 19)}Z` : utc;
    case 1:
      return withOffset(at, 60);
    case 2: {
      // West of UTC, without the colon: 05:30 earlier on the wall clock.
      const local = new Date(at - 330 * 60_000).toISOString().slice(0, 23);
      return `${local}-0530`;
    }
    case 3:
      return utc.slice(0, -1);
    default:
      return new Date(at - 1).toISOString();
  }
}

/**
 * A copy of a request body with every date-time in it re-spelt, and how many there were; for
 * ANOTHER_INSTANT only the first one moves (one field of another meaning is enough).
 */
export function respellDateTimes(body: unknown, spelling: number): { body: unknown; count: number } {
  let count = 0;
  const visit = (value: unknown): unknown => {
    if (typeof value === 'string') {
      if (!/^\d{4}-\d{2}-\d{2}T/.test(value) || (spelling === ANOTHER_INSTANT && count > 0)) return value;
      const spelt = respellDateTime(value, spelling);
      if (spelt === undefined) return value;
      count++;
      return spelt;
    }
    if (Array.isArray(value)) return value.map(visit);
    if (value === null || typeof value !== 'object') return value;
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>).map(([key, item]) => [key, visit(item)]),
    );
  };
  return { body: visit(body), count };
}
