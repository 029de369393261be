// Sign-in with an API token. The token is checked against the service first
// (GET /tokens/current) and kept only if it is accepted.

import { h, messageArea } from '../dom.js';

/**
 * @param {object} options
 * @param {(token: string) => Promise<void>} options.signIn checks and keeps the token; throws an ApiFailure
 * @param {object} [options.reason] why the user is here again (an expired or revoked token)
 */
export function render({ signIn, reason }) {
  const messages = messageArea();
  const input = h('input', {
    id: 'token',
    name: 'token',
    type: 'password',
    required: true,
    autocomplete: 'off',
    spellcheck: 'false',
    autocapitalize: 'off',
  });
  const button = h('button', { type: 'submit', class: 'primary' }, 'Sign in');
  const form = h(
    'form',
    {
      class: 'sign-in-form',
      novalidate: true,
      onsubmit: async (event) => {
        event.preventDefault();
        const token = input.value.trim();
        if (token === '') {
          messages.error('Paste an API token first.', { focus: false });
          input.focus();
          return;
        }
        button.disabled = true;
        messages.loading('Checking the token…');
        try {
          await signIn(token);
        } catch (failure) {
          messages.error(failure, { focus: true });
          button.disabled = false;
          input.select();
        }
      },
    },
    h('label', { for: 'token' }, 'API token'),
    h('div', { class: 'lookup-row' }, input, button),
    h(
      'p',
      { class: 'field-hint' },
      'Paste the admin token the service printed on its first start, or a token made with ',
      h('code', {}, 'npx store-ops token create'),
      '. It stays in this browser tab only and is forgotten when the tab is closed.',
    ),
  );
  const view = h(
    'section',
    { class: 'view sign-in', 'aria-labelledby': 'view-title' },
    h('h1', { id: 'view-title', tabindex: '-1' }, 'Sign in to the store console'),
    form,
    messages.element,
  );
  if (reason) messages.error(reason);
  return { element: view, focus: input };
}
