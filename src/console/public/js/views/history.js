// A product's ledger in the chosen store: newest entries first, with a chart of the
// stock level they add up to.

import { stockLevelChart } from '../chart.js';
import { dataTable, h, resultHeading } from '../dom.js';
import { delta, moment, poolName, quantity, REVIEW_STATUS, sourceLabel } from '../format.js';
import { levelsOverTime, loadLedger } from '../history-data.js';
import { loadProductStock } from '../stock-data.js';
import { productLookupView } from './product-lookup.js';

export const title = 'History';

export function render(ctx, params) {
  return productLookupView(ctx, params, {
    view: 'history',
    title: `Stock history in ${ctx.storeLabel}`,
    buttonLabel: 'Show history',
    loadingText: (code) => `Loading the history of ${code}…`,
    load: (code, results) => historyOf(ctx, code, results),
  });
}

async function historyOf(ctx, code, results) {
  // The stock read resolves a barcode to its product and gives the level to walk back from.
  const stock = await loadProductStock(ctx.api, ctx.store.store_number, code);
  const ledger = await loadLedger(ctx.api, ctx.store.store_number, stock.productNumber);
  const { entries, steps } = levelsOverTime(ledger.entries, stock.total);
  const heading = resultHeading(2, `${stock.name} (${stock.productNumber})`);
  const element = h(
    'article',
    { class: 'history-result' },
    heading,
    h(
      'p',
      { class: 'meta' },
      `In store now: ${quantity(stock.total)}. `,
      ledger.total > entries.length
        ? `Showing the newest ${entries.length} of ${ledger.total} entries.`
        : `${ledger.total} entries.`,
    ),
    steps.length > 0
      ? h(
          'figure',
          { class: 'chart-box' },
          // Measured now, on the page: the chart is drawn at the width it is shown.
          stockLevelChart(steps, {
            label: `Stock level of ${stock.productNumber} over time`,
            width: results.clientWidth,
          }),
          h('figcaption', {}, 'Stock level after each applied entry, by when it was recorded.'),
        )
      : h('p', { class: 'empty' }, 'No applied entries yet, so there is no level to chart.'),
    dataTable({
      caption: 'Ledger entries, newest first',
      empty: 'No entries for this product in this store.',
      columns: [
        { label: 'Recorded', cell: (entry) => moment(entry.created_on) },
        {
          label: 'Change',
          numeric: true,
          cell: (entry) =>
            entry.purged_to_most_likely ? delta(entry.quantity) : `${delta(entry.quantity)} (not applied)`,
        },
        {
          label: 'Level after',
          numeric: true,
          cell: (entry) => (entry.levelAfter === undefined ? '–' : quantity(entry.levelAfter)),
        },
        { label: 'Pool', cell: (entry) => (entry.stock_pool ? poolName(ctx.store, Number(entry.stock_pool)) : '–') },
        { label: 'Location', cell: (entry) => entry.location_code ?? '–' },
        { label: 'Reason', cell: (entry) => entry.reason_code_description ?? sourceLabel(entry.source) ?? '–' },
        { label: 'Status', cell: (entry) => REVIEW_STATUS[entry.review_status] ?? '–' },
        { label: 'By', cell: (entry) => entry.app_user_name ?? entry.updated_by ?? '–' },
      ],
      rows: entries,
    }),
  );
  return { element, heading };
}
