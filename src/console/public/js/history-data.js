// A product's ledger in one store (GET /products/stock/storeproductlogs, interface §4.8)
// and the stock level it implies over time.

const PAGE_SIZE = 200;

/**
 * The newest entries (up to two pages): the list is in id order, so the newest are on its
 * last pages, found from `total_count`.
 */
export async function loadLedger(api, storeNumber, productNumber) {
  const query = { store_number: storeNumber, article_number: productNumber, page_size: PAGE_SIZE };
  const first = await api.get('/products/stock/storeproductlogs', query);
  if (first.total_count <= PAGE_SIZE) return { entries: first.list, total: first.total_count };
  const lastPage = Math.ceil(first.total_count / PAGE_SIZE);
  const pages = await Promise.all(
    [lastPage - 1, lastPage].map((page) =>
      page === 1 ? first : api.get('/products/stock/storeproductlogs', { ...query, page_start: page }),
    ),
  );
  return { entries: pages.flatMap((page) => page.list), total: first.total_count };
}

/**
 * The level after each applied entry, walked back from the current level: an applied
 * entry's quantity is what it booked (its ledger deltas, docs/stock.md "Reading an entry"),
 * and the balance is the sum of them all, so the level after entry i is the current level
 * minus everything booked after it. Entries are in arrival order (id); an entry not applied
 * (pending, rejected) moved nothing and has no level.
 * Returns the entries with `levelAfter` set, and the chart's steps (oldest first).
 */
export function levelsOverTime(entries, currentLevel) {
  const ordered = [...entries].sort((a, b) => a.id - b.id);
  const withLevels = new Map();
  let level = currentLevel;
  for (const entry of [...ordered].reverse()) {
    if (!entry.purged_to_most_likely) continue;
    withLevels.set(entry.id, round(level));
    level -= entry.quantity;
  }
  const applied = ordered.filter((entry) => entry.purged_to_most_likely);
  const steps = [];
  if (applied.length > 0) {
    const first = applied[0];
    steps.push({ at: Date.parse(first.created_on), level: round(withLevels.get(first.id) - first.quantity) });
    for (const entry of applied) {
      // Arrival order is the order the ledger applied them; a clock step back is drawn flat.
      const at = Math.max(Date.parse(entry.created_on), steps[steps.length - 1].at);
      steps.push({ at, level: withLevels.get(entry.id) });
    }
  }
  return {
    entries: ordered.map((entry) => ({ ...entry, levelAfter: withLevels.get(entry.id) })).reverse(),
    steps,
  };
}

const round = (value) => Math.round(value * 1000) / 1000;
