import 'fastify';
import type { AccessRule, Principal } from '../shared/access.js';
import type { AppContext } from '../app-context.js';
import type { VersionedResource } from '../db/versions.js';
import type { ControlledTransaction } from 'kysely';
import type { Database } from '../db/schema.js';

declare module 'fastify' {
  interface FastifyInstance {
    ctx: AppContext;
  }
  interface FastifyRequest {
    /** What services get for this request: the app's context, or one that knows its Idempotency-Key. */
    ctx: AppContext;
    /** The authenticated caller; set for every /api/v2/public route. */
    principal?: Principal;
    /** SHA-256 of the raw JSON body, kept for bulk imports and requests with an Idempotency-Key. */
    rawBodyHash?: string;
    /** The request's Idempotency-Key and, until it commits or rolls back, its request transaction (plugins/idempotency.ts). */
    idempotency?: { scope: string; key: string; transaction?: ControlledTransaction<Database> };
    /** A list response to keep, at the resource version read before answering (plugins/list-cache.ts). */
    listCache?: { key: string; version: string; changeToken: string | undefined };
    /** Until when (epoch ms) the answer stays right as time passes; default forever. */
    listCacheValidUntil?: number;
  }
  interface FastifyContextConfig {
    /** How the route is guarded (shared/access.ts); defaults to `master`. */
    access?: AccessRule;
    /** The route also takes the credential in an `api_key` header (interface §5). */
    apiKey?: boolean;
    /** A bulk import: its raw body is hashed for the identical-import shortcut (db/versions.ts). */
    bulkImport?: boolean;
    /**
     * `standby`: a GET that a standby of DATABASE_READ_URL may serve (plugins/read-routing.ts,
     * docs/operations.md "Read scaling"); unset: the primary serves it.
     */
    reads?: 'standby';
    /** Keep serialized answers while this resource's version is unchanged (plugins/list-cache.ts). */
    listCache?: VersionedResource | VersionedResource[];
  }
}
