import type { QuantityKind, TimeKind } from './actions.js';

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
