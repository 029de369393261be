import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/**
 * A caller's own request id (`x-request-id`) is kept when it is a plausible trace id —
 * 1 to 128 visible ASCII characters — so logs on both sides line up; anything else
 * (empty, huge, beyond ASCII) gets a fresh UUID. The id is echoed in every answer's
 * header, so an unbounded one would let a client make the server send it back
 * (and Latin-1 characters come back as two bytes each).
 */
const PLAUSIBLE_REQUEST_ID = /^[\x21-\x7e]{1,128}$/;

export function requestIdOf(request: IncomingMessage): string {
  const sent = request.headers['x-request-id'];
  return typeof sent === 'string' && PLAUSIBLE_REQUEST_ID.test(sent) ? sent : randomUUID();
}
