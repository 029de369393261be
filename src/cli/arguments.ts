import { InvalidArgumentError } from 'commander';
import { parseDateTime } from '../domain/datetime.js';
import { parseMonth } from '../db/months.js';
import { isRole } from '../modules/tokens/service.js';

// Option and argument parsers of the commands: a value they refuse is a usage error (exit 2)
// with commander's message naming the option and what it must be.

export function parseMonthOption(value: string) {
  const month = parseMonth(value);
  if (month === undefined) throw new InvalidArgumentError('must be a month as YYYY-MM');
  return month;
}

export function parseRole(value: string) {
  if (!isRole(value)) throw new InvalidArgumentError('must be one of admin, integration, store, read');
  return value;
}

export function parseMoment(value: string) {
  const at = parseDateTime(value);
  if (at === undefined)
    throw new InvalidArgumentError('must be an ISO 8601 date-time (Z, an offset, or neither for UTC)');
  return at;
}

export function parseConfigNumber(value: string) {
  if (!/^[0-9]{1,10}$/.test(value) || Number(value) > 2_147_483_647)
    throw new InvalidArgumentError('must be a whole number from 0 to 2147483647');
  return Number(value);
}

export function parseCount(min: number, max: number) {
  return (value: string) => {
    if (!/^[0-9]{1,10}$/.test(value) || Number(value) < min || Number(value) > max)
      throw new InvalidArgumentError(`must be a whole number from ${min} to ${max}`);
    return Number(value);
  };
}

/** A feed sequence: a whole number from 1 up to the largest JSON-safe integer. */
export function parseSequence(value: string) {
  if (!/^[0-9]{1,16}$/.test(value) || Number(value) < 1 || !Number.isSafeInteger(Number(value)))
    throw new InvalidArgumentError('must be a sequence: a whole number, 1 or more');
  return Number(value);
}

export function parseStores(value: string) {
  const stores = value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (stores.length === 0) throw new InvalidArgumentError('must list at least one store number');
  return stores;
}
