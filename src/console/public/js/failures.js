// Every way a call to the API can fail, as a sentence a person on the shop floor can act
// on (issue 16: "every error message from the API is shown in words, not as a status
// code"). The API's own message (PRODUCT §3 error envelope) is always part of it, and
// each failing field it names is listed with its own message.

/** A failed API call, ready to be shown. */
export class ApiFailure extends Error {
  constructor(sentence, { kind, fields = [], code } = {}) {
    super(sentence);
    this.sentence = sentence;
    /** 'unauthorized' | 'forbidden' | 'not-found' | 'refused' | 'conflict' | 'rate-limited' | 'unavailable' | 'network' | 'unreadable' */
    this.kind = kind;
    this.fields = fields;
    this.code = code;
  }
}

const withStop = (text) => (/[.!?…]$/.test(text) ? text : `${text}.`);

/** The failure for an answer with a 4xx/5xx status and its (possibly missing) envelope. */
export function failureFromAnswer(status, envelope, retryAfterSeconds) {
  const said =
    typeof envelope?.message === 'string' && envelope.message.trim() !== '' ? withStop(envelope.message.trim()) : '';
  const fields = Array.isArray(envelope?.errors)
    ? envelope.errors.map((error) => (error.path ? `${error.path}: ${error.message}` : String(error.message)))
    : [];
  const code = envelope?.code;
  const make = (kind, sentence) => new ApiFailure(sentence, { kind, fields, code });
  if (status === 401)
    return make(
      'unauthorized',
      `Your token was not accepted. ${said || 'It is unknown, expired or revoked.'} Sign in again with a valid token.`,
    );
  if (status === 403) return make('forbidden', `Your token may not do this. ${said}`.trim());
  if (status === 404) return make('not-found', `Not found. ${said}`.trim());
  if (status === 409) return make('conflict', `That could not be done in the current state. ${said}`.trim());
  if (status === 429) {
    const wait = retryAfterSeconds
      ? ` Wait ${retryAfterSeconds} seconds, then try again.`
      : ' Wait a moment, then try again.';
    return make('rate-limited', `Too many requests for this token. ${said}${wait}`);
  }
  if (status === 400 || status === 413 || status === 415 || status === 422) {
    return make('refused', `The service refused the request. ${said || 'It names no reason.'}`);
  }
  if (status === 503)
    return make('unavailable', `The service is unavailable right now. ${said} Try again shortly.`.replace(/\s+/g, ' '));
  if (status >= 500)
    return make(
      'unavailable',
      `The service failed to answer. ${said} Try again; if it keeps failing, tell the operator.`.replace(/\s+/g, ' '),
    );
  return make('refused', said || 'The service refused the request without saying why.');
}

export const networkFailure = () =>
  new ApiFailure('The service could not be reached. Check the network connection, then try again.', {
    kind: 'network',
  });

export const unreadableAnswer = () =>
  new ApiFailure(
    'The service sent an answer the console could not read. Reload the page; if it happens again, tell the operator.',
    { kind: 'unreadable' },
  );
