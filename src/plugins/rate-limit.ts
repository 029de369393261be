import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../shared/errors.js';
import { API_PREFIX } from './auth.js';

/**
 * Rate limit per token (PRODUCT §4: RATE_LIMIT_PER_MINUTE, 0 = off), with in-process
 * counters. Its hook must run after authentication (plugins/hook-order.ts), so a request
 * is counted against the token that made it and a refused credential counts nowhere.
 */
export async function registerRateLimit(app: FastifyInstance, perMinute: number): Promise<void> {
  if (perMinute <= 0) return;
  await app.register(rateLimit, {
    global: true,
    max: perMinute,
    timeWindow: 60_000,
    keyGenerator: (request) => (request.principal ? request.principal.key : `ip:${request.ip}`),
    allowList: (request) => !request.url.startsWith(API_PREFIX) || request.routeOptions.config.access === 'public',
    errorResponseBuilder: (_request, context) =>
      new AppError(
        'RATE_LIMITED',
        `Rate limit of ${context.max} requests per minute exceeded; retry in ${Math.ceil(context.ttl / 1000)} s`,
      ),
  });
}
