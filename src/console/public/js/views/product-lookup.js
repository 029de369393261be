// The shape the stock and history views share: a scan field, a message area and results
// for the code in the address (#/stock?code=…). A barcode scanner is a keyboard: it types
// the code and presses Enter, which submits the form.

import { h, messageArea } from '../dom.js';

/**
 * @param {object} ctx the view context (app.js)
 * @param {URLSearchParams} params the address's parameters; `code` is looked up
 * @param {object} options
 * @param {string} options.view this view's name in the address
 * @param {string} options.title the view's heading
 * @param {string} options.buttonLabel the submit button
 * @param {(code: string) => string} options.loadingText what is said while waiting
 * @param {(code: string, results: HTMLElement) => Promise<{element: Node, heading: HTMLElement}>} options.load
 *   reads and builds the result; `heading` takes focus when it is shown
 */
export function productLookupView(ctx, params, { view, title, buttonLabel, loadingText, load }) {
  const code = params.get('code');
  const messages = messageArea();
  const results = h('div', { class: 'results', 'aria-busy': 'false' });
  const input = h('input', {
    id: `${view}-code`,
    name: 'code',
    type: 'text',
    value: code ?? '',
    required: true,
    maxlength: '64',
    autocomplete: 'off',
    autocapitalize: 'off',
    spellcheck: 'false',
    enterkeyhint: 'search',
    'data-scan-target': true,
  });
  const hint = h('p', { class: 'field-hint', 'aria-live': 'polite' });
  const form = h(
    'form',
    {
      class: 'lookup',
      novalidate: true,
      onsubmit: (event) => {
        event.preventDefault();
        const typed = input.value.trim();
        if (typed === '') {
          input.setAttribute('aria-invalid', 'true');
          hint.textContent = 'Scan or type a barcode, product number or name first.';
          input.focus();
          return;
        }
        ctx.navigate(view, { code: typed });
      },
    },
    h('label', { for: input.id }, 'Barcode, product number or name'),
    h('div', { class: 'lookup-row' }, input, h('button', { type: 'submit', class: 'primary' }, buttonLabel)),
    hint,
  );
  const element = h(
    'section',
    { class: 'view', 'aria-labelledby': 'view-title' },
    h('h1', { id: 'view-title', tabindex: '-1' }, title),
    form,
    messages.element,
    results,
  );
  // Not awaited: the view is returned now; show() puts its own failures in `messages`.
  if (code) void show();
  return { element, focus: code ? null : input };

  async function show() {
    messages.loading(loadingText(code));
    results.setAttribute('aria-busy', 'true');
    try {
      const { element: result, heading } = await load(code, results);
      messages.clear();
      results.replaceChildren(result);
      if (ctx.moveFocus) heading.focus();
    } catch (failure) {
      results.replaceChildren();
      messages.error(failure, { focus: ctx.moveFocus });
    } finally {
      results.setAttribute('aria-busy', 'false');
    }
  }
}
