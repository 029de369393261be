// Lines of external counts whose barcode matched no product (PRODUCT §5, §4.13): kept so
// someone can find out what was counted.

import { path } from '../api.js';
import { dataTable, h, messageArea } from '../dom.js';
import { moment, quantity } from '../format.js';
import { pagedList } from '../paged-list.js';

export const title = 'Counting';

export function render(ctx) {
  const messages = messageArea();
  const list = pagedList({
    messages,
    moveFocus: ctx.moveFocus,
    fetchPage: (page) =>
      ctx.api.get(path('/stores/', ctx.store.store_number, '/externalcountinglines/unresolved'), {
        page_start: page,
        page_size: 100,
      }),
    summary: (page) => (page.total_count === 1 ? '1 unresolved line' : `${page.total_count} unresolved lines`),
    renderItems: (lines) =>
      dataTable({
        caption: 'Counted barcodes that match no product',
        empty: 'Every counted barcode matched a product.',
        columns: [
          { label: 'Barcode', cell: (line) => line.barcode || '(none)' },
          { label: 'Counted', numeric: true, cell: (line) => quantity(line.counted_quantity) },
          { label: 'Counted at', cell: (line) => moment(line.counting_datetime) },
          { label: 'Received', cell: (line) => moment(line.received_on) },
        ],
        rows: lines,
      }),
  });
  const view = h(
    'section',
    { class: 'view', 'aria-labelledby': 'view-title' },
    h('h1', { id: 'view-title', tabindex: '-1' }, `Unresolved counting lines of ${ctx.storeLabel}`),
    h(
      'p',
      { class: 'intro' },
      'Lines of external counts whose barcode matched no product. Add the barcode to its product in the ERP, then count that product again.',
    ),
    messages.element,
    list.element,
  );
  // Not awaited: the view is returned now; the list shows its own failures in `messages`.
  void list.start();
  return { element: view };
}
