// A list read page by page (PagedResponse, PRODUCT §3.1) with a "Show more" button that
// asks for the next page and keeps what is shown.

import { h, replace } from './dom.js';

/**
 * @param {object} options
 * @param {(page: number) => Promise<object>} options.fetchPage one page of the list
 * @param {(items: object[]) => Node} options.renderItems the shown items (all pages so far)
 * @param {(page: object) => string} options.summary a sentence about the whole list
 */
export function pagedList({ fetchPage, renderItems, summary, messages, moveFocus = true, headingLevel = 2 }) {
  const element = h('div', { class: 'paged', 'aria-busy': 'false' });
  const items = [];
  let firstPage;

  async function load(pageNumber) {
    element.setAttribute('aria-busy', 'true');
    messages.loading(pageNumber === 1 ? 'Loading…' : 'Loading more…');
    try {
      const page = await fetchPage(pageNumber);
      firstPage ??= page;
      items.push(...page.list);
      messages.clear();
      const heading = h(`h${headingLevel}`, { tabindex: '-1', class: 'result-heading' }, summary(firstPage));
      const more =
        page.next_page !== null && page.next_page !== undefined
          ? h(
              'button',
              { type: 'button', class: 'more', onclick: () => load(page.next_page) },
              `Show more (${items.length} of ${firstPage.total_count} shown)`,
            )
          : null;
      replace(element, heading, renderItems(items), more);
      if (pageNumber === 1 && moveFocus) heading.focus();
      else element.querySelector('.more')?.focus();
    } catch (failure) {
      messages.error(failure, { focus: moveFocus || pageNumber > 1 });
    } finally {
      element.setAttribute('aria-busy', 'false');
    }
  }

  return { element, start: () => load(1) };
}
