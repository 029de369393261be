// The outbox on this device (issue 43): what waits to be sent, what the service refused and
// what to do about it, and what was sent lately. Nothing leaves the outbox unseen: a refused
// action stays until the employee discards it or sends it again.

import { h, messageArea } from '../dom.js';
import { momentToSecond } from '../format.js';

export const title = 'Outbox';

const STATE_LABELS = { waiting: 'Waiting', refused: 'Refused', sent: 'Sent' };

export function render(ctx) {
  const messages = messageArea();
  const list = h('div', { class: 'outbox-list', 'aria-live': 'polite' });
  const element = h(
    'section',
    { class: 'view', 'aria-labelledby': 'view-title' },
    h('h1', { id: 'view-title', tabindex: '-1' }, 'Outbox on this device'),
    h(
      'p',
      { class: 'intro' },
      'Every count, loss and move is kept here first and sent in order when the network is there. Refused ones stay until you deal with them.',
    ),
    messages.element,
    list,
  );
  const draw = async () => {
    if (!element.isConnected && list.childElementCount > 0) return unsubscribe();
    const actions = (await ctx.outbox.list()).reverse();
    list.replaceChildren(
      actions.length === 0
        ? h('p', { class: 'empty' }, 'Nothing waiting, nothing refused.')
        : h(
            'ul',
            { class: 'outbox' },
            actions.map((action) => item(action)),
          ),
    );
  };
  const unsubscribe = ctx.outbox.subscribe(() => void draw());
  void draw();
  return { element };

  function item(action) {
    return h(
      'li',
      { class: `outbox-item ${action.state}`, 'data-state': action.state, 'data-key': action.key },
      h(
        'p',
        { class: 'outbox-what' },
        h('strong', { class: 'state' }, STATE_LABELS[action.state] ?? action.state),
        ` ${action.label}`,
      ),
      h(
        'p',
        { class: 'meta' },
        `Store ${action.store} · scanned ${momentToSecond(action.scannedAt)}`,
        action.by ? ` by ${action.by}` : '',
        action.state === 'sent' ? ` · sent ${momentToSecond(action.sentAt)}` : '',
        action.state === 'waiting' && action.lastTry ? ` · last try: ${action.lastTry}` : '',
      ),
      action.state === 'refused'
        ? [
            h('p', { class: 'notice error', role: 'alert' }, action.failure.sentence),
            action.failure.fields?.length
              ? h(
                  'ul',
                  { class: 'field-errors' },
                  action.failure.fields.map((text) => h('li', {}, text)),
                )
              : null,
            h('p', { class: 'what-to-do' }, action.failure.whatToDo),
            h(
              'div',
              { class: 'actions' },
              h('button', { type: 'button', onclick: () => void ctx.outbox.retry(action.id) }, 'Send again'),
              h(
                'button',
                { type: 'button', class: 'quiet', onclick: () => void ctx.outbox.discard(action.id) },
                'Discard',
              ),
            ),
          ]
        : null,
    );
  }
}
