import type { Kysely } from 'kysely';
import type { Database } from '../../../db/schema.js';
import {
  effectivePrice,
  resolvedPrice,
  specialPrice,
  type PriceCandidate,
  type PriceContext,
} from '../../../domain/pricing.js';
import { discountsNotEndedAt } from '../discounts/repository.js';
import type { ProductPricing } from '../mapping.js';
import { pricesValidAt } from './repository.js';
import type { PriceCandidateRow } from '../rows.js';

/** The store a price is asked for: its number, country and price line (PRODUCT §6 scopes). */
export interface PricingStore {
  store_number: string;
  country_code: string | null;
  price_line_id: number | null;
}

/** What the pricing read needs of a product. */
export interface PricedProduct {
  id: number;
  country_code: string | null;
  price: number | null;
}

const toCandidate = (row: PriceCandidateRow): PriceCandidate => ({
  id: row.id,
  priceMoney: row.price,
  validFrom: row.valid_from,
  validTo: row.valid_to,
  storeNumber: row.store_number,
  priceGroup: row.price_group,
  countryCode: row.country_code,
});

/**
 * A store knows its own number, country and price line; a chain-wide read knows only the
 * product's country, so store and price-group prices do not apply there.
 */
function priceContext(product: PricedProduct, store: PricingStore | undefined): PriceContext {
  if (store === undefined) return { countryCode: product.country_code ?? undefined };
  return {
    storeNumber: store.store_number,
    countryCode: store.country_code ?? undefined,
    priceGroups: store.price_line_id === null ? [] : [String(store.price_line_id)],
  };
}

/**
 * Effective price and special price of many products at once: two queries for the
 * whole batch (prices, discounts), never one per product (PRODUCT §6).
 */
export async function pricingOf(
  db: Kysely<Database>,
  products: readonly PricedProduct[],
  store: PricingStore | undefined,
  now: number,
): Promise<Map<number, ProductPricing>> {
  const ids = products.map((p) => p.id);
  const [prices, discounts] =
    ids.length === 0 ? [[], []] : await Promise.all([pricesValidAt(db, ids, now), discountsNotEndedAt(db, ids, now)]);
  const pricesByProduct = groupBy(prices.map((row) => ({ productId: row.product_id, candidate: toCandidate(row) })));
  const discountsByProduct = groupBy(
    discounts.map((row) => ({
      productId: row.product_id,
      candidate: { priceMoney: row.price, validFrom: row.valid_from, validTo: row.valid_to },
    })),
  );
  const pricing = new Map<number, ProductPricing>();
  for (const product of products) {
    const effective = effectivePrice(pricesByProduct.get(product.id) ?? [], priceContext(product, store), now);
    pricing.set(product.id, {
      priceMoney: resolvedPrice(effective, product.price),
      specialPriceMoney: specialPrice(discountsByProduct.get(product.id) ?? [], now),
    });
  }
  return pricing;
}

/**
 * Effective price (a valid price record of the most specific scope, else the master
 * price; PRODUCT §6) of each product in its own store, for pairs spanning many stores
 * (the stock reads of §2.5): one price query for the whole batch. In the order of `pairs`.
 */
export async function effectivePricesInStores(
  db: Kysely<Database>,
  pairs: ReadonlyArray<{ product: PricedProduct; store: PricingStore }>,
  now: number,
): Promise<Array<number | null>> {
  if (pairs.length === 0) return [];
  const prices = await pricesValidAt(db, [...new Set(pairs.map((pair) => pair.product.id))], now);
  const pricesByProduct = groupBy(prices.map((row) => ({ productId: row.product_id, candidate: toCandidate(row) })));
  return pairs.map(({ product, store }) =>
    resolvedPrice(
      effectivePrice(pricesByProduct.get(product.id) ?? [], priceContext(product, store), now),
      product.price,
    ),
  );
}

function groupBy<T>(entries: ReadonlyArray<{ productId: number; candidate: T }>): Map<number, T[]> {
  const groups = new Map<number, T[]>();
  for (const { productId, candidate } of entries) {
    const group = groups.get(productId);
    if (group) group.push(candidate);
    else groups.set(productId, [candidate]);
  }
  return groups;
}
