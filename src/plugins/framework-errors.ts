import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { codeForStatus, errorEnvelope } from '../shared/errors.js';

/**
 * Longest path parameter the router hands on (Fastify's default is 100). It sits above
 * every published path-parameter limit (the OpenAPI test checks it), so a parameter a
 * little too long is refused by its schema with its own name, and only an absurd one
 * (e.g. 5,000 characters) stops at the router.
 */
export const MAX_PARAM_LENGTH = 1024;

/**
 * Fastify's `frameworkErrors` option: the router's own refusals — a path that is not
 * valid percent-encoded UTF-8 (`%zz`, `%E0%A4%A`, a lone `%`, overlong `%C0%AF`) and a
 * parameter over MAX_PARAM_LENGTH — answer in the PRODUCT §3 envelope instead of
 * Fastify's body. These run before routing, so no hook has set the request id yet.
 * The URL is never echoed: it may be huge, and the path names the part well enough.
 */
export function frameworkErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  reply.header('x-request-id', request.id);
  switch (error.code) {
    case 'FST_ERR_BAD_URL':
      reply
        .code(400)
        .send(
          errorEnvelope('VALIDATION_FAILED', 'The URL path is not valid percent-encoded UTF-8', [
            { path: 'params', message: 'must be valid percent-encoded UTF-8' },
          ]),
        );
      return;
    case 'FST_ERR_MAX_PARAM_LENGTH':
      reply
        .code(400)
        .send(
          errorEnvelope('VALIDATION_FAILED', `A path parameter is longer than ${MAX_PARAM_LENGTH} characters`, [
            { path: 'params', message: `must NOT have more than ${MAX_PARAM_LENGTH} characters` },
          ]),
        );
      return;
    default: {
      // Any router refusal added by a later Fastify: a client mistake keeps its status.
      const status =
        error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
      if (status === 500) request.log.error({ err: error }, 'framework error');
      reply
        .code(status)
        .send(
          errorEnvelope(codeForStatus(status), status === 500 ? 'Internal server error' : 'The request is invalid'),
        );
    }
  }
}

/** What Node's HTTP parser refused, as a status and envelope. */
function clientErrorAnswer(code: string | undefined): { status: number; body: ReturnType<typeof errorEnvelope> } {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      // The request line counts too: a query string over the limit lands here.
      return {
        status: 431,
        body: errorEnvelope('HEADERS_TOO_LARGE', 'The request line and headers exceed the server limit of 16 KiB', [
          { path: 'headers', message: 'the request line and headers must total at most 16 KiB' },
        ]),
      };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
    case 'ERR_HTTP_HEADERS_TIMEOUT':
      return { status: 408, body: errorEnvelope('REQUEST_TIMEOUT', 'The request was not received in time') };
    default:
      return { status: 400, body: errorEnvelope('VALIDATION_FAILED', 'The request is not valid HTTP/1.1') };
  }
}

/**
 * Fastify's `clientErrorHandler` option (the server's 'clientError' event): requests
 * Node's HTTP parser refuses before any route sees them — headers or a request line
 * over the 16 KiB limit, malformed request lines. It writes a complete HTTP response
 * with the envelope and closes the connection (the parser cannot resume on it).
 */
export function clientErrorHandler(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  if (socket.writable) {
    const { status, body } = clientErrorAnswer(error.code);
    const text = JSON.stringify(body);
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(text)}\r\n` +
        `x-request-id: ${randomUUID()}\r\n` +
        'Connection: close\r\n\r\n' +
        text,
    );
  }
  socket.destroy();
}
