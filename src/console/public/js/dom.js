// DOM building from nodes and text only. Nothing here (or anywhere in the console) assigns
// HTML text: the page's CSP requires Trusted Types for such sinks and allows no policy, so
// text from the API — product names, error messages — can never become markup.

const SVG_NS = 'http://www.w3.org/2000/svg';

/**
 * h('button', { class: 'primary', type: 'button', onclick: fn }, 'Approve')
 * Properties starting with "on" become listeners; `class` and attributes are set as such;
 * `null`, `undefined` and `false` properties and children are skipped.
 */
export function h(tag, props = {}, ...children) {
  return build(document.createElement(tag), props, children);
}

/** The same for SVG elements (the chart). */
export function s(tag, props = {}, ...children) {
  return build(document.createElementNS(SVG_NS, tag), props, children);
}

function build(element, props, children) {
  for (const [name, value] of Object.entries(props ?? {})) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') element.addEventListener(name.slice(2), value);
    else element.setAttribute(name, value === true ? '' : String(value));
  }
  append(element, children);
  return element;
}

function append(element, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replaces everything inside `element` with `children`. */
export function replace(element, ...children) {
  element.replaceChildren();
  append(element, children);
  return element;
}

/**
 * One view's loading, error and success messages, announced by screen readers: the area is
 * a polite live region that stays in place while its content changes; an error is an alert.
 */
export function messageArea() {
  const element = h('div', { class: 'messages', 'aria-live': 'polite' });
  const show = (kind, content, focus) => {
    const notice = h(
      'div',
      { class: `notice ${kind}`, role: kind === 'error' ? 'alert' : null, tabindex: '-1' },
      content,
    );
    replace(element, notice);
    if (focus) notice.focus();
    return notice;
  };
  return {
    element,
    loading: (text) => show('loading', h('p', {}, h('span', { class: 'spinner', 'aria-hidden': 'true' }), text)),
    error: (failure, { focus = false } = {}) => show('error', failureContent(failure), focus),
    success: (text, { focus = false } = {}) => show('success', h('p', {}, text), focus),
    info: (text) => show('info', h('p', {}, text)),
    clear: () => replace(element),
  };
}

/** An API failure as words: the sentence, then each failing field the API named. */
function failureContent(failure) {
  const sentence = typeof failure === 'string' ? failure : (failure.sentence ?? String(failure.message ?? failure));
  const fields = Array.isArray(failure?.fields) ? failure.fields : [];
  return [
    h('p', {}, sentence),
    fields.length > 0
      ? h(
          'ul',
          { class: 'field-errors' },
          fields.map((field) => h('li', {}, field)),
        )
      : null,
  ];
}

/** A table that becomes labelled cards on a narrow screen (each cell carries its column name). */
export function dataTable({ caption, columns, rows, empty = 'Nothing to show.' }) {
  if (rows.length === 0) return h('p', { class: 'empty' }, empty);
  const { element, body } = tableFrame({ caption, columns });
  body.append(...rows.map((row) => dataRow(columns, row)));
  return element;
}

/** The same table with an empty body that rows are added to later (the change feed). */
export function tableFrame({ caption, columns }) {
  const body = h('tbody', {});
  const element = h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      { class: 'data' },
      caption ? h('caption', {}, caption) : null,
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          columns.map((column) => h('th', { scope: 'col', class: column.numeric ? 'num' : null }, column.label)),
        ),
      ),
      body,
    ),
  );
  return { element, body };
}

/** One row of such a table. */
export function dataRow(columns, row) {
  return h(
    'tr',
    { class: row.rowClass ?? null },
    columns.map((column) =>
      // One element per cell: on a handheld the cell is a two-column grid (label, value).
      h(
        'td',
        { 'data-label': column.label, class: column.numeric ? 'num' : null },
        h('div', { class: 'cell' }, column.cell(row)),
      ),
    ),
  );
}

/** A labelled figure for the summary grids (`<dl>`). */
export function figure(label, value, extra) {
  return h(
    'div',
    { class: 'figure' },
    h('dt', {}, label),
    h('dd', {}, value, extra ? h('span', { class: 'figure-extra' }, extra) : null),
  );
}

/** A heading that takes focus when results arrive, so keyboard and screen-reader users land on them. */
export function resultHeading(level, text) {
  return h(`h${level}`, { tabindex: '-1', class: 'result-heading' }, text);
}
