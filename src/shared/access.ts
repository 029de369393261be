import { forbidden } from './errors.js';
import type { StringOptions } from '@sinclair/typebox';
import { TextId } from './schemas.js';

/** Token roles (PRODUCT §4). */
export const ROLES = ['admin', 'integration', 'store', 'read'] as const;
export type Role = (typeof ROLES)[number];

/** How a caller proved who it is (PRODUCT §4): a `sot_` token, our OAuth2 client's JWT, or an external issuer's JWT. */
export type PrincipalKind = 'token' | 'client' | 'external';

/** The authenticated caller of a request. */
export interface Principal {
  /**
   * One stable caller, whatever credential it presents this time: `token <id>` for a `sot_`
   * token, `client <client_id>` for every access token of one OAuth2 client, `external
   * <issuer> <subject>` for a chain provider's caller. Idempotency scopes and rate limits key on it.
   */
  key: string;
  kind: PrincipalKind;
  /** The `api_tokens` row of a `sot_` token; 0 for the service itself and for JWT callers. */
  tokenId: number;
  /** The OAuth2 client (kind `client`). */
  clientId?: string;
  /** When the credential stops working (ms), null: never. */
  expiresAt?: number | null;
  name: string;
  role: Role;
  /** Store numbers a store-role token may see; null means every store. */
  stores: readonly string[] | null;
}

/**
 * How a route is guarded:
 * - `master`: master data; every role reads, admin and integration write;
 * - `store`: a `{store_number}` path; a store token only for its stores;
 * - `cross-store`: lists across stores (filtered to a store token's stores) and writes whose
 *   items name their store (checked by the service);
 * - `admin`: token management;
 * - `integration`: what only admin and integration tokens reach, reads included (webhook
 *   subscriptions, PRODUCT §9: they name where the service sends data);
 * - `any`: reads by every valid token, whatever its role (a token describing itself).
 */
export type AccessRule = 'public' | 'master' | 'store' | 'cross-store' | 'admin' | 'integration' | 'any';

function isReadMethod(method: string): boolean {
  return method === 'GET' || method === 'HEAD';
}

/** Store numbers the caller may see in lists; null = no restriction. */
export function visibleStores(principal: Principal): readonly string[] | null {
  return principal.role === 'store' ? (principal.stores ?? []) : null;
}

/**
 * The stores a list answers for (PRODUCT §4 "everything a store token reads … reflects only
 * its stores"): the store of a store path (its access was checked before), else a store
 * token's stores; undefined = every store. Rows, total_count and project_last_modified_date
 * of a list all take it (db/page.ts inStores, newestUpdatedOn), the other filters only rows
 * and count.
 */
export function listScope(principal: Principal, pathStore?: string): readonly string[] | undefined {
  if (pathStore !== undefined) return [pathStore];
  return visibleStores(principal) ?? undefined;
}

function canSeeStore(principal: Principal, storeNumber: string): boolean {
  const stores = visibleStores(principal);
  return stores === null || stores.includes(storeNumber);
}

/**
 * The one authority check (PRODUCT §4): a store token's authority covers every store a
 * request touches — the store of its path (assertRouteAccess), every store its body names
 * (assertNamedStores, from the fields its schema marks as StoreRef), every store reached
 * through stored data (the services: the store of a record found by its number) and every
 * store the stock kernel books into (ledger/book.ts, postings.ts). All of them end here.
 */
export function assertStoreAccess(principal: Principal, storeNumber: string): void {
  if (!canSeeStore(principal, storeNumber)) {
    throw forbidden(`Token '${principal.name}' has no access to store '${storeNumber}'`);
  }
}

/** A store a request body names, and where (`orders[3].store_origin`). */
export interface NamedStore {
  path: string;
  storeNumber: string;
}

/** 403 naming every path whose store the principal does not hold; nothing is done before it. */
export function assertNamedStores(principal: Principal, named: readonly NamedStore[]): void {
  if (visibleStores(principal) === null) return;
  const refused = named.filter((ref) => !canSeeStore(principal, ref.storeNumber));
  if (refused.length === 0) return;
  const stores = [...new Set(refused.map((ref) => `'${ref.storeNumber}'`))].join(', ');
  throw forbidden(
    `Token '${principal.name}' has no access to store ${stores} named in the request`,
    refused.map((ref) => ({
      path: ref.path,
      message: `names store '${ref.storeNumber}', which this token may not touch`,
    })),
  );
}

/**
 * The principal of work the service does on its own behalf, outside any request (the demo
 * seed): every store. Requests always book as their token.
 */
export function servicePrincipal(name: string): Principal {
  return { key: 'token 0', kind: 'token', tokenId: 0, name, role: 'admin', stores: null };
}

/** Role check for a route before any work (PRODUCT §4). */
export function assertRouteAccess(principal: Principal, rule: AccessRule, method: string, storeNumber?: string): void {
  const read = isReadMethod(method);
  if (principal.role === 'admin') return;
  // `any` admits every role to reads only: a write marked so still meets the role checks below.
  if (rule === 'any' && read) return;
  if (rule === 'admin') throw forbidden('Token management needs an admin token');
  if (rule === 'integration' && principal.role !== 'integration')
    throw forbidden(
      `Token '${principal.name}' has the ${principal.role} role: this needs an admin or integration token`,
    );
  if (!read && principal.role === 'read')
    throw forbidden(`Token '${principal.name}' has the read role: it may only read`);
  if (!read && rule === 'master' && principal.role === 'store') {
    throw forbidden('Master data is written by integration or admin tokens; store tokens only read it');
  }
  if (rule === 'store' && storeNumber !== undefined) assertStoreAccess(principal, storeNumber);
}

/**
 * Marks a request field that names a store (PRODUCT §4: a store token must hold every store
 * a request touches). plugins/auth.ts reads the marks off each route's body schema and
 * checks every store so named before the handler runs (assertNamedStores), so a field that
 * names a store is checked by being declared a StoreRef — no service has to remember it.
 */
export const STORE_REF = 'x-store-ref';

/** A store number in a request body: a TextId the store token's authority is checked against. */
export const StoreRef = (options: StringOptions = {}) => TextId(64, { ...options, [STORE_REF]: true });

type SchemaNode = Record<string, unknown> & {
  properties?: Record<string, SchemaNode>;
  items?: SchemaNode;
  anyOf?: SchemaNode[];
  oneOf?: SchemaNode[];
  allOf?: SchemaNode[];
};

/** One marked field: the property names and array steps (`null`) leading to it. */
type RefPath = ReadonlyArray<string | null>;

function markedPaths(node: SchemaNode | undefined, at: RefPath, found: RefPath[]): void {
  if (node === undefined || typeof node !== 'object') return;
  if (node[STORE_REF] === true) found.push(at);
  for (const [name, child] of Object.entries(node.properties ?? {})) markedPaths(child, [...at, name], found);
  if (node.items !== undefined) markedPaths(node.items, [...at, null], found);
  for (const branch of [...(node.anyOf ?? []), ...(node.oneOf ?? []), ...(node.allOf ?? [])])
    markedPaths(branch, at, found);
}

function collect(value: unknown, steps: RefPath, index: number, path: string, out: NamedStore[]): void {
  if (index === steps.length) {
    if (typeof value === 'string') out.push({ path, storeNumber: value });
    return;
  }
  const step = steps[index];
  if (step === null) {
    if (Array.isArray(value)) value.forEach((item, i) => collect(item, steps, index + 1, `${path}[${i}]`, out));
  } else if (value !== null && typeof value === 'object') {
    collect((value as Record<string, unknown>)[step!], steps, index + 1, path === '' ? step! : `${path}.${step}`, out);
  }
}

/**
 * What a body schema's StoreRef fields hold in a validated body, with their paths; undefined
 * for a schema without any, so routes whose bodies name no store get no check at all.
 * Built once per route (plugins/auth.ts), applied only to store-role tokens.
 */
export function namedStoresReader(bodySchema: unknown): ((body: unknown) => NamedStore[]) | undefined {
  const paths: RefPath[] = [];
  markedPaths(bodySchema as SchemaNode | undefined, [], paths);
  if (paths.length === 0) return undefined;
  return (body) => {
    const named: NamedStore[] = [];
    for (const steps of paths) collect(body, steps, 0, '', named);
    return named;
  };
}
