import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { DbHandle } from '../db/dialect/types.js';
import { isMigrated } from '../db/migrate.js';
import { errorEnvelope } from '../shared/errors.js';
import { ErrorEnvelope } from '../shared/schemas.js';

const ProbeStatus = Type.Object({ status: Type.String() });

/** How long a readiness ping may take: a load balancer's check must not hang on a silent network. */
const PING_DEADLINE_MILLIS = 2000;

/**
 * Resolves when the database answers `select 1` within `deadlineMillis`, rejects otherwise
 * (refused, lost, or no answer in time: a server behind a cut network never says no).
 */
export async function pingWithin(handle: DbHandle, deadlineMillis = PING_DEADLINE_MILLIS): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`the database did not answer within ${deadlineMillis} ms`)),
      deadlineMillis,
    );
  });
  try {
    await Promise.race([handle.ping(), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** Liveness and readiness (PRODUCT §2); no credential needed. */
export function registerProbes(app: FastifyInstance, handle: DbHandle): void {
  let migrated = false;
  app.get(
    '/healthz',
    {
      schema: { tags: ['operations'], summary: 'Liveness', security: [], response: { 200: ProbeStatus } },
      config: { access: 'public' },
    },
    async () => ({ status: 'ok' }),
  );
  app.get(
    '/readyz',
    {
      schema: {
        tags: ['operations'],
        summary: 'Readiness: database reachable and migrated',
        security: [],
        response: { 200: ProbeStatus, 503: ErrorEnvelope },
      },
      config: { access: 'public' },
    },
    async (request, reply) => {
      try {
        await pingWithin(handle);
        // Once migrated, a process stays migrated: later checks only ping.
        migrated ||= await isMigrated(handle);
      } catch (error) {
        request.log.warn({ err: error }, 'readiness check failed');
        return reply.code(503).send(errorEnvelope('UNAVAILABLE', 'The database is unreachable'));
      }
      if (!migrated) return reply.code(503).send(errorEnvelope('UNAVAILABLE', 'The database is not migrated yet'));
      return { status: 'ready' };
    },
  );
}
