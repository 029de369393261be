import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { LRUCache } from 'lru-cache';
import type { DbHandle } from '../db/dialect/types.js';
import { readVersions } from '../db/versions.js';
import { visibleStores } from '../shared/access.js';
import { hookEachRoute, hookRoutes } from './route-hooks.js';

export const MAX_LIST_ANSWERS = 512;
export const MAX_LIST_BYTES = 64 * 1024 * 1024;
/** Read when an app registers its cache; lowered by test/modules/bounded-caches.test.ts. */
export const listCacheLimit = { max: MAX_LIST_ANSWERS, maxSize: MAX_LIST_BYTES };
const caches = new WeakMap<DbHandle, LRUCache<string, Entry>>();
/** How many answers the list cache of the app on this handle holds now (tests). */
export const keptListAnswersOf = (handle: DbHandle): number => caches.get(handle)?.size ?? 0;
const SERVER_TIME_MARK = '"server_time":"';
const ISO_LENGTH = 24; // YYYY-MM-DDTHH:mm:ss.sssZ

interface Entry {
  version: string;
  /** The database's change token read before the versions (SQLite only): equal again, nothing was committed since. */
  changeToken: string | undefined;
  /** The answer depends on the clock (validity windows) and is right until this moment. */
  validUntil: number;
  /** The response split around server_time, the only part that changes between hits. */
  head: Buffer;
  tail: Buffer | undefined;
  /** The last answer made from head and tail, and the millisecond its server_time names. */
  rendered?: { at: number; body: Buffer };
}

function entryOf(label: Pick<Entry, 'version' | 'changeToken' | 'validUntil'>, payload: string): Entry {
  const at = payload.indexOf(SERVER_TIME_MARK);
  if (at === -1) return { ...label, head: Buffer.from(payload), tail: undefined };
  const valueAt = at + SERVER_TIME_MARK.length;
  return {
    ...label,
    head: Buffer.from(payload.slice(0, valueAt)),
    tail: Buffer.from(payload.slice(valueAt + ISO_LENGTH)),
  };
}

/**
 * The answer stamped with the current millisecond. Hits within one millisecond share one
 * Buffer — the same bytes a fresh answer would carry. Joining a new one per hit allocated an
 * ArrayBuffer outside V8's heap for every answer over 4 KiB; at ~20,000 hits a second that
 * external memory pushed V8 into frequent full collections (p99 5 ms instead of 1).
 */
function render(entry: Entry): Buffer {
  if (entry.tail === undefined) return entry.head;
  const now = Date.now();
  if (entry.rendered?.at !== now) {
    entry.rendered = {
      at: now,
      body: Buffer.concat([entry.head, Buffer.from(new Date(now).toISOString()), entry.tail]),
    };
  }
  return entry.rendered.body;
}

/**
 * Serialized list responses of master data kept in memory and served again while the
 * resource's version (bumped by database triggers on every change, from any process) is
 * unchanged — one primary-key read instead of the queries, mapping and serialization. A
 * response depends only on the URL, the caller's visible stores and the data, never on
 * the clock — except server_time, re-stamped on every hit, and validity windows, for which
 * a handler sets `request.listCacheValidUntil` — so a hit is exactly what a fresh answer
 * would be. Routes opt in with `config: { listCache: 'stores' }` (or several resources).
 * Where the database gives a change token (SQLite) and it is the one read when the answer
 * was made, nothing at all was committed since: the answer is served without reading the
 * versions either.
 */
export function registerListCache(app: FastifyInstance, handle: DbHandle): void {
  // Bounded by count and by bytes, the least recently used answer forgotten first (issue 40 item
  // 8). What an entry holds: its key (a URL of up to 16 KiB), head and tail, and — once hit — the
  // rendered answer, as long again: all counted, so MAX_LIST_BYTES bounds what is really held.
  const entries = new LRUCache<string, Entry>({
    max: listCacheLimit.max,
    maxSize: listCacheLimit.maxSize,
    sizeCalculation: (entry, key) => key.length + 2 * (entry.head.length + (entry.tail?.length ?? 0)),
  });
  caches.set(handle, entries);

  const cached = (route: RouteOptions) =>
    route.config?.listCache !== undefined && [route.method].flat().includes('GET');

  hookEachRoute(app, 'preHandler', cached, (route) => {
    const listed = route.config!.listCache!;
    const resources = Array.isArray(listed) ? listed : [listed];
    return async (request: FastifyRequest, reply: FastifyReply) => {
      if (!request.principal) return;
      const changeToken = handle.changeToken();
      const key = `${request.url}\u0000${visibleStores(request.principal)?.join('\u0001') ?? '*'}`;
      const kept = entries.get(key);
      // Nothing committed since the kept answer was made: its versions are still the current ones.
      const unchanged = kept !== undefined && changeToken !== undefined && kept.changeToken === changeToken;
      const version = unchanged ? kept.version : await readVersions(handle.db, resources);
      const hit = unchanged ? kept : entries.get(key);
      if (hit && hit.version === version && Date.now() < hit.validUntil) {
        reply.header('content-type', 'application/json; charset=utf-8');
        return reply.send(render(hit));
      }
      request.listCache = { key, version, changeToken };
    };
  });

  hookRoutes(app, 'onSend', cached, async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const pending = request.listCache;
    if (!pending || reply.statusCode !== 200 || typeof payload !== 'string') return payload;
    const entry = entryOf(
      {
        version: pending.version,
        changeToken: pending.changeToken,
        validUntil: request.listCacheValidUntil ?? Number.POSITIVE_INFINITY,
      },
      payload,
    );
    entries.set(pending.key, entry);
    return payload;
  });
}
