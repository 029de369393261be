// One floor task's view (count, loss, move): a form whose last Enter queues the action in
// the outbox and clears the form for the next scan, with the feedback a scanner user needs
// (what was queued, or what is wrong) in words and in colour.

import { h, messageArea } from '../dom.js';
import { enterMovesOn } from './floor-form.js';
import { scanFeedback } from '../scan-feedback.js';

/**
 * @param {object} ctx the view context (app.js)
 * @param {object} task
 * @param {string} task.heading
 * @param {string} task.intro
 * @param {string} task.submitLabel
 * @param {(form: HTMLFormElement) => Promise<{ fields: Node[], product: object, focus: HTMLElement }>} task.build
 *   the form's fields (it may read the store's locations and reason codes first)
 * @param {(found: object) => { action?: object, before?: object[], reset?: () => void, problem?: string,
 *   problemField?: HTMLElement }} task.action the action for the product found and what else was
 *   entered (and actions it needs sent before it, such as its photo, and how to clear what is
 *   not a plain field), or what is missing
 */
export function floorTaskView(ctx, task) {
  const messages = messageArea();
  const form = h('form', { class: 'floor-task', novalidate: true });
  const element = h(
    'section',
    { class: 'view', 'aria-labelledby': 'view-title' },
    h('h1', { id: 'view-title', tabindex: '-1' }, task.heading),
    h('p', { class: 'intro' }, task.intro),
    ctx.canWrite ? null : h('p', { class: 'notice info' }, 'Your token may only read: nothing can be booked here.'),
    messages.element,
    form,
  );
  enterMovesOn(form);
  void build();
  return { element };

  async function build() {
    messages.loading('Loading the store’s locations and reason codes…');
    try {
      const { fields, product, focus } = await task.build(form);
      messages.clear();
      const submit = h('button', { type: 'submit', class: 'primary big', disabled: !ctx.canWrite }, task.submitLabel);
      form.replaceChildren(...fields, submit);
      form.addEventListener('submit', (event) => {
        event.preventDefault();
        void queue(product, focus);
      });
      if (ctx.moveFocus) focus.focus();
    } catch (failure) {
      messages.error(failure, { focus: ctx.moveFocus });
    }
  }

  async function queue(product, focus) {
    messages.clear();
    const found = await product.product();
    const code = product.input.value.trim();
    const {
      action,
      before = [],
      reset,
      problem,
      problemField,
    } = found
      ? task.action(found)
      : {
          problem: code ? `No product ${code} in this store: scan or type another.` : 'Scan or type the product first.',
          problemField: product.input,
        };
    if (!action) {
      messages.error(problem);
      if (problemField) scanFeedback(problemField, false);
      problemField?.focus();
      return;
    }
    // Cleared before the action is kept, so the next scan can start at once and is never wiped.
    for (const invalid of form.querySelectorAll('[aria-invalid]')) invalid.removeAttribute('aria-invalid');
    product.reset();
    for (const input of form.querySelectorAll('input[type=number], textarea')) input.value = '';
    reset?.();
    focus.focus();
    try {
      for (const first of before) await ctx.outbox.add(first);
      await ctx.outbox.add(action);
    } catch (error) {
      messages.error(
        `${action.label} could not be kept on this device (${error.message}): nothing was queued. Book it again.`,
      );
      return;
    }
    scanFeedback(product.input, true);
    messages.success(
      `Queued: ${action.label}. ${navigator.onLine ? 'Sending…' : 'It is sent when the network is back.'}`,
    );
  }
}
