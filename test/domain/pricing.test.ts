import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  PRICE_SCOPES,
  appliesIn,
  effectivePrice,
  isDiscountValidAt,
  isPriceValidAt,
  nextOldPrice,
  resolvedPrice,
  scopeOf,
  specialPrice,
  type DiscountCandidate,
  type PriceCandidate,
  type PriceContext,
} from '../../src/domain/pricing.js';

const NOW = Date.UTC(2026, 10, 22, 12);
const DAY = 86_400_000;

let nextId = 1;
function price(priceMoney: number, overrides: Partial<PriceCandidate> = {}): PriceCandidate {
  return {
    id: nextId++,
    priceMoney,
    validFrom: NOW - 10 * DAY,
    validTo: NOW + 10 * DAY,
    storeNumber: null,
    priceGroup: null,
    countryCode: null,
    ...overrides,
  };
}

const IN_STORE: PriceContext = { storeNumber: '1001', priceGroups: ['7'], countryCode: 'NL' };

describe('scopes (PRODUCT §6: store > price group > country > chain)', () => {
  it('takes the most specific condition a price carries', () => {
    expect(scopeOf(price(1, { storeNumber: '1001', countryCode: 'NL' }))).toBe('store');
    expect(scopeOf(price(1, { priceGroup: '7', countryCode: 'NL' }))).toBe('price_group');
    expect(scopeOf(price(1, { countryCode: 'NL' }))).toBe('country');
    expect(scopeOf(price(1))).toBe('chain');
  });

  it('applies a price only where every condition it carries holds', () => {
    expect(appliesIn(price(1, { storeNumber: '1001' }), IN_STORE)).toBe(true);
    expect(appliesIn(price(1, { storeNumber: '1002' }), IN_STORE)).toBe(false);
    expect(appliesIn(price(1, { priceGroup: '8' }), IN_STORE)).toBe(false);
    expect(appliesIn(price(1, { countryCode: 'nl' }), IN_STORE)).toBe(true);
    expect(appliesIn(price(1, { storeNumber: '1001', countryCode: 'BE' }), IN_STORE)).toBe(false);
    expect(appliesIn(price(1, { countryCode: 'NL' }), {})).toBe(false);
    expect(appliesIn(price(1), {})).toBe(true);
  });
});

describe('effectivePrice', () => {
  it('prefers store over price group over country over chain', () => {
    const chain = price(10);
    const country = price(9, { countryCode: 'NL' });
    const group = price(8, { priceGroup: '7' });
    const store = price(7, { storeNumber: '1001' });
    expect(effectivePrice([chain, country, group, store], IN_STORE, NOW)).toBe(store);
    expect(effectivePrice([chain, country, group], IN_STORE, NOW)).toBe(group);
    expect(effectivePrice([chain, country], IN_STORE, NOW)).toBe(country);
    expect(effectivePrice([chain], IN_STORE, NOW)).toBe(chain);
  });

  it('takes the latest valid_from within one scope, then the later-written record', () => {
    const older = price(10, { validFrom: NOW - 5 * DAY });
    const newer = price(11, { validFrom: NOW - 1 * DAY });
    expect(effectivePrice([newer, older], {}, NOW)).toBe(newer);
    const twinA = price(12, { validFrom: NOW - DAY });
    const twinB = price(13, { validFrom: NOW - DAY });
    expect(effectivePrice([twinB, twinA], {}, NOW)).toBe(twinB);
  });

  it('ignores prices not valid now: valid_from inclusive, valid_to exclusive', () => {
    const future = price(1, { storeNumber: '1001', validFrom: NOW + 1 });
    const ended = price(2, { storeNumber: '1001', validTo: NOW });
    const starting = price(3, { validFrom: NOW });
    expect(isPriceValidAt(ended, NOW)).toBe(false);
    expect(isPriceValidAt(starting, NOW)).toBe(true);
    expect(effectivePrice([future, ended, starting], IN_STORE, NOW)).toBe(starting);
    expect(effectivePrice([future, ended], IN_STORE, NOW)).toBeUndefined();
  });

  it('falls back to the master price only when no record is valid', () => {
    expect(resolvedPrice(undefined, 25_000)).toBe(25_000);
    expect(resolvedPrice(price(19_900), 25_000)).toBe(19_900);
    expect(resolvedPrice(undefined, null)).toBeNull();
  });

  const candidateArb = fc
    .record({
      id: fc.integer({ min: 1, max: 1_000_000 }),
      priceMoney: fc.integer({ min: 0, max: 10_000_000 }),
      validFrom: fc.integer({ min: NOW - 20 * DAY, max: NOW + 5 * DAY }),
      length: fc.integer({ min: 1, max: 30 * DAY }),
      storeNumber: fc.constantFrom(null, '1001', '1002'),
      priceGroup: fc.constantFrom(null, '7', '8'),
      countryCode: fc.constantFrom(null, 'NL', 'BE'),
    })
    .map(({ length, ...rest }): PriceCandidate => ({ ...rest, validTo: rest.validFrom + length }));
  const pricesArb = fc.uniqueArray(candidateArb, { selector: (c) => c.id, maxLength: 25 });
  const contextArb = fc.constantFrom<PriceContext>(
    IN_STORE,
    { countryCode: 'NL' },
    { countryCode: 'BE' },
    {},
    { storeNumber: '1002', countryCode: 'BE', priceGroups: ['8'] },
  );

  it('picks a valid applicable price that no other valid applicable price beats', () => {
    fc.assert(
      fc.property(pricesArb, contextArb, (prices, context) => {
        const eligible = prices.filter((p) => isPriceValidAt(p, NOW) && appliesIn(p, context));
        const chosen = effectivePrice(prices, context, NOW);
        if (eligible.length === 0) return chosen === undefined;
        if (chosen === undefined || !eligible.includes(chosen)) return false;
        const rank = (p: PriceCandidate) => PRICE_SCOPES.indexOf(scopeOf(p));
        return eligible.every(
          (other) =>
            rank(other) > rank(chosen) ||
            (rank(other) === rank(chosen) &&
              (other.validFrom < chosen.validFrom || (other.validFrom === chosen.validFrom && other.id <= chosen.id))),
        );
      }),
    );
  });

  it('does not depend on the order the records come in', () => {
    fc.assert(
      fc.property(pricesArb, contextArb, fc.nat(), (prices, context, seed) => {
        const shuffled = [...prices].sort((a, b) => ((a.id * 7919 + seed) % 1009) - ((b.id * 7919 + seed) % 1009));
        return effectivePrice(prices, context, NOW) === effectivePrice(shuffled, context, NOW);
      }),
    );
  });
});

describe('specialPrice (lowest discounted unit price valid now)', () => {
  const discount = (
    priceMoney: number,
    validFrom: number | null = null,
    validTo: number | null = null,
  ): DiscountCandidate => ({ priceMoney, validFrom, validTo });

  it('takes the lowest valid discount; open ends are open', () => {
    expect(
      specialPrice([discount(15_000), discount(12_000, NOW - DAY, NOW + DAY), discount(9_000, NOW + DAY)], NOW),
    ).toBe(12_000);
    expect(specialPrice([discount(9_000, null, NOW)], NOW)).toBeUndefined();
    expect(specialPrice([], NOW)).toBeUndefined();
    expect(isDiscountValidAt(discount(1, NOW, null), NOW)).toBe(true);
  });

  it('is never above a valid discount and is one of them', () => {
    const discountArb = fc.record({
      priceMoney: fc.integer({ min: 0, max: 1_000_000 }),
      validFrom: fc.option(fc.integer({ min: NOW - 3 * DAY, max: NOW + 3 * DAY }), { nil: null }),
      validTo: fc.option(fc.integer({ min: NOW - 3 * DAY, max: NOW + 3 * DAY }), { nil: null }),
    });
    fc.assert(
      fc.property(fc.array(discountArb, { maxLength: 20 }), (discounts) => {
        const valid = discounts.filter((d) => isDiscountValidAt(d, NOW));
        const special = specialPrice(discounts, NOW);
        if (valid.length === 0) return special === undefined;
        return valid.some((d) => d.priceMoney === special) && valid.every((d) => special! <= d.priceMoney);
      }),
    );
  });
});

describe('nextOldPrice (the price before the last price change)', () => {
  it('moves the previous price into old_price on a change and keeps it otherwise', () => {
    expect(nextOldPrice(25_000, null, 22_000)).toBe(25_000);
    expect(nextOldPrice(22_000, 25_000, 22_000)).toBe(25_000);
    expect(nextOldPrice(22_000, 25_000, 20_000)).toBe(22_000);
    expect(nextOldPrice(null, null, 20_000)).toBeNull();
  });

  it('after any sequence of prices, old_price is the last value that differed from the current one', () => {
    fc.assert(
      fc.property(
        fc.array(fc.option(fc.integer({ min: 0, max: 5 }), { nil: null }), { minLength: 1, maxLength: 20 }),
        (sequence) => {
          let current: number | null = sequence[0] ?? null;
          let old: number | null = null;
          for (const next of sequence.slice(1)) {
            old = nextOldPrice(current, old, next);
            current = next;
          }
          const changes = sequence.filter((value, i) => i === 0 || value !== sequence[i - 1]);
          const expected = changes.length >= 2 ? changes[changes.length - 2]! : null;
          return old === expected;
        },
      ),
    );
  });
});
