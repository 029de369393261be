import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/app.js';
import type { Config } from '../../src/config.js';
import { createToken } from '../../src/modules/tokens/service.js';
import type { Role } from '../../src/shared/access.js';
import type { TestDialect } from './dialects.js';

export const ADMIN_TOKEN = 'test-admin-token';
export const API = '/api/v2/public';

export interface TestApp {
  app: FastifyInstance;
  /** Request with the admin token unless `token` says otherwise (null = no credential). */
  request(options: InjectOptions & { token?: string | null }): Promise<LightMyRequestResponse>;
  get(url: string, token?: string | null): Promise<LightMyRequestResponse>;
  post(url: string, body: unknown, token?: string | null): Promise<LightMyRequestResponse>;
  put(url: string, body: unknown, token?: string | null): Promise<LightMyRequestResponse>;
  del(url: string, body?: unknown, token?: string | null): Promise<LightMyRequestResponse>;
  /** A new token of that role (and stores), straight through the service. */
  token(role: Role, stores?: string[], expiresAt?: number): Promise<string>;
  close(): Promise<void>;
}

let tokenCounter = 0;

/** The production app (buildApp) on a fresh database of the given dialect. */
export async function buildTestApp(dialect: TestDialect, overrides: Partial<Config> = {}): Promise<TestApp> {
  const config: Config = {
    port: 0,
    host: '127.0.0.1',
    databaseUrl: await dialect.freshDatabaseUrl(),
    adminToken: ADMIN_TOKEN,
    logLevel: 'silent',
    rateLimitPerMinute: 0,
    ...overrides,
  };
  const app = await buildApp(config);
  await app.ready();
  const request = (options: InjectOptions & { token?: string | null }) => {
    const { token, ...inject } = options;
    const headers: Record<string, string> = { ...(inject.headers as Record<string, string> | undefined) };
    const credential = token === undefined ? ADMIN_TOKEN : token;
    if (credential !== null && headers.authorization === undefined) headers.authorization = `Bearer ${credential}`;
    return app.inject({ ...inject, headers });
  };
  return {
    app,
    request,
    get: (url, token) => request({ method: 'GET', url, token }),
    post: (url, body, token) => request({ method: 'POST', url, payload: body as InjectOptions['payload'], token }),
    put: (url, body, token) => request({ method: 'PUT', url, payload: body as InjectOptions['payload'], token }),
    del: (url, body, token) => request({ method: 'DELETE', url, payload: body as InjectOptions['payload'], token }),
    token: (role, stores, expiresAt) =>
      createToken(app.ctx.db, {
        name: `${role}-${++tokenCounter}-${Date.now()}`,
        role,
        stores,
        expiresAt,
        createdBy: 'test',
      }),
    close: () => app.close(),
  };
}
