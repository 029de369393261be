import http from 'node:http';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';

/**
 * Requests over a real socket to a listening app: `app.inject` and fetch normalise URLs
 * and headers, and the router's and HTTP parser's own refusals only happen on the wire.
 */
export interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

export interface RawClient {
  port: number;
  /** One request; `path` is sent byte for byte as the request target. */
  request(options: {
    method: string;
    path: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
  }): Promise<RawAnswer>;
  /** Writes `text` on a fresh connection and returns everything the server answered. */
  socket(text: string | Buffer): Promise<string>;
  close(): void;
}

export async function listen(app: FastifyInstance): Promise<RawClient> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as AddressInfo).port;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  return {
    port,
    request: ({ method, path, headers = {}, body }) =>
      new Promise((resolve, reject) => {
        // An explicit length: Node sends a DELETE body with neither length nor chunking.
        const length = body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) };
        const request = http.request(
          { host: '127.0.0.1', port, method, path, headers: { ...headers, ...length }, agent },
          (response) => {
            const chunks: Buffer[] = [];
            response.on('data', (chunk: Buffer) => chunks.push(chunk));
            response.on('end', () =>
              resolve({
                status: response.statusCode ?? 0,
                headers: response.headers,
                text: Buffer.concat(chunks).toString('utf8'),
              }),
            );
            response.on('error', reject);
          },
        );
        request.on('error', reject);
        request.end(body);
      }),
    socket: (text) => sendRaw(port, text),
    close: () => agent.destroy(),
  };
}

/** Writes `text` on a fresh connection to `port` and returns everything the server answered until it closed. */
export function sendRaw(port: number, text: string | Buffer): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(text));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    // The server may reset the connection while the client still writes: keep what arrived.
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

export interface Envelope {
  success: false;
  code: string;
  message: string;
  errors: Array<{ path: string; message: string }>;
}

/** The body of a 4xx/5xx answer as the PRODUCT §3 envelope, or a sentence saying why it is not one. */
export function parseEnvelope(text: string): Envelope | string {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return `not JSON: ${text.slice(0, 120)}`;
  }
  const envelope = body as Partial<Envelope>;
  if (
    envelope?.success !== false ||
    typeof envelope.code !== 'string' ||
    typeof envelope.message !== 'string' ||
    !Array.isArray(envelope.errors)
  ) {
    return `not the envelope: ${text.slice(0, 160)}`;
  }
  return envelope as Envelope;
}

export function expectEnvelope(answer: RawAnswer, status: number, code: string): Envelope {
  expect(answer.status, answer.text.slice(0, 300)).toBe(status);
  const envelope = parseEnvelope(answer.text);
  if (typeof envelope === 'string') throw new Error(envelope);
  expect(envelope.code).toBe(code);
  return envelope;
}

/** Splits a raw HTTP/1.1 answer into status, lower-case headers and body. */
export function parseRawAnswer(raw: string): RawAnswer {
  const [head = '', ...rest] = raw.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers: http.IncomingHttpHeaders = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(statusLine.split(' ')[1]), headers, text: rest.join('\r\n\r\n') };
}
