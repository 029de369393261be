// Reads one product's stock in one store, from the API's answers as they are:
// - the single-product stock read (interface §4.4) by product number or any barcode, once
//   with everything and once without stock bound to customer orders: the difference is
//   the order-bound stock (PRODUCT §5), pool by pool;
// - the product master (name, barcode, effective and special price in the store) and the
//   store product's own price when it has one (GET /storeproducts/stock, PRODUCT §6).

import { path } from './api.js';
import { POOLS } from './format.js';

const stockOf = (answer) => answer?.products?.[0] ?? { most_likely_stock: 0 };
const poolQuantity = (entry, pool) => entry[`stock_pool_${pool}`] ?? 0;
/** Quantities have at most 3 decimals (PRODUCT §3); a difference of two is rounded back to them. */
const minus = (a, b) => Math.round((a - b) * 1000) / 1000;

export async function loadProductStock(api, storeNumber, code) {
  const stockPath = path('/stores/', storeNumber, '/products/', code, '/stock');
  const [all, free] = await Promise.all([
    api.get(stockPath, { include_locations: true }),
    api.get(stockPath, { exclude_customer_order_stock: true }),
  ]);
  const total = stockOf(all);
  const unbound = stockOf(free);
  const productNumber = total.product_number ?? code;
  const [master, storeProduct] = await Promise.all([
    api.get('/products', { product_number: productNumber, store_number: storeNumber }),
    api.get('/storeproducts/stock', { store_number: storeNumber, product_number: productNumber, page_size: 1 }),
  ]);
  const product = master?.records?.[0];
  const storeLine = storeProduct?.list?.[0];
  const pools = POOLS.map((pool) => ({ pool, total: poolQuantity(total, pool), free: poolQuantity(unbound, pool) }))
    .map((line) => ({ ...line, orderBound: minus(line.total, line.free) }))
    .filter((line) => line.total !== 0 || line.free !== 0);
  return {
    code,
    productNumber,
    name: product?.product_name ?? storeLine?.product_description ?? productNumber,
    barcode: product?.barcode || storeLine?.barcode || undefined,
    total: total.most_likely_stock,
    free: unbound.most_likely_stock,
    orderBound: minus(total.most_likely_stock, unbound.most_likely_stock),
    pools,
    locations: (total.store_locations ?? []).map((line) => ({
      code: line.store_location_code,
      quantity: line.quantity,
      tags: line.tags ?? [],
      pools: POOLS.map((pool) => ({ pool, quantity: poolQuantity(line, pool) })).filter((part) => part.quantity !== 0),
    })),
    // The store's price for the product: the store product's own, else the effective price (PRODUCT §6).
    price: storeLine?.price ?? product?.price,
    specialPrice: product?.special_price,
    lastChanged: storeLine?.most_likely_datetime,
  };
}

/**
 * Products of the store whose number, name, description or any barcode contains `text`
 * (the stock listing's `search_text`, PRODUCT §6): what "milk" finds when it is no code.
 */
export async function searchProducts(api, storeNumber, text, limit = 20) {
  const page = await api.get('/storeproducts/stock', {
    store_number: storeNumber,
    search_text: text,
    page_size: limit,
  });
  return {
    total: page?.total_count ?? 0,
    products: (page?.list ?? []).map((line) => ({
      productNumber: line.product_number,
      name: line.product_description ?? line.product_number,
      barcode: line.barcode,
      stock: line.most_likely_stock,
    })),
  };
}
