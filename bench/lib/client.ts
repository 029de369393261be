/**
 * Talking to the service over HTTP, as any client does: fetch with the admin token.
 * Seeding and every timed request of the write scenarios go through here.
 */
import { AUTHORIZATION } from './service.js';
import { timed } from './stats.js';

export interface Answer {
  status: number;
  /** The body exactly as sent (the bare baselines serve these bytes). */
  bytes: Buffer;
  text(): string;
  json<T = unknown>(): T;
}

export async function call(
  baseUrl: string,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  path: string,
  body?: string,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: {
      authorization: AUTHORIZATION,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    body,
  });
  const bytes = Buffer.from(await response.arrayBuffer());
  return {
    status: response.status,
    bytes,
    text: () => bytes.toString('utf8'),
    json: <T>() => JSON.parse(bytes.toString('utf8')) as T,
  };
}

/** Throws with the answer's text unless the status is the expected one. */
export function expectStatus(answer: Answer, status: number, what: string): Answer {
  if (answer.status !== status)
    throw new Error(`${what}: expected HTTP ${status}, got ${answer.status}: ${answer.text().slice(0, 500)}`);
  return answer;
}

/** POST a prepared body and expect 200: seeding. */
export async function postOk(baseUrl: string, path: string, body: unknown, what: string): Promise<Answer> {
  return expectStatus(
    await call(baseUrl, 'POST', path, typeof body === 'string' ? body : JSON.stringify(body)),
    200,
    what,
  );
}

/** GET and expect 200. */
export async function getOk(baseUrl: string, path: string, what: string): Promise<Answer> {
  return expectStatus(await call(baseUrl, 'GET', path), 200, what);
}

/**
 * A timed POST whose Ack message must be `expected` (the body is serialised beforehand,
 * outside the timing): what a client waits from sending the first byte to the last byte
 * of the answer.
 */
export function timedPost(
  baseUrl: string,
  path: string,
  body: string,
  expected: string | RegExp,
  headers?: Record<string, string>,
): Promise<number> {
  return timedSend(baseUrl, 'POST', path, body, expected, headers);
}

/** timedPost for any writing method (e.g. the PUT of a customer order pick). */
export async function timedSend(
  baseUrl: string,
  method: 'POST' | 'PUT',
  path: string,
  body: string,
  expected: string | RegExp,
  headers?: Record<string, string>,
): Promise<number> {
  const { ms, result } = await timed(() => call(baseUrl, method, path, body, headers));
  expectStatus(result, 200, `${method} ${path}`);
  const message = result.json<{ message: string }>().message;
  const matches = typeof expected === 'string' ? message === expected : expected.test(message);
  if (!matches) throw new Error(`${method} ${path} answered "${message}", expected "${expected}"`);
  return ms;
}
