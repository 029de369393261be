import { forbidden } from './errors.js';

/** Token roles (PRODUCT §4). */
export const ROLES = ['admin', 'integration', 'store', 'read'] as const;
export type Role = (typeof ROLES)[number];

/** The authenticated caller of a request. */
export interface Principal {
  tokenId: number;
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
 * - `any`: reads by every valid token, whatever its role (a token describing itself).
 */
export type AccessRule = 'public' | 'master' | 'store' | 'cross-store' | 'admin' | 'any';

function isReadMethod(method: string): boolean {
  return method === 'GET' || method === 'HEAD';
}

/** Store numbers the caller may see in lists; null = no restriction. */
export function visibleStores(principal: Principal): readonly string[] | null {
  return principal.role === 'store' ? (principal.stores ?? []) : null;
}

function canSeeStore(principal: Principal, storeNumber: string): boolean {
  const stores = visibleStores(principal);
  return stores === null || stores.includes(storeNumber);
}

export function assertStoreAccess(principal: Principal, storeNumber: string): void {
  if (!canSeeStore(principal, storeNumber)) {
    throw forbidden(`Token '${principal.name}' has no access to store '${storeNumber}'`);
  }
}

/** Role check for a route before any work (PRODUCT §4). */
export function assertRouteAccess(principal: Principal, rule: AccessRule, method: string, storeNumber?: string): void {
  const read = isReadMethod(method);
  if (principal.role === 'admin') return;
  // `any` admits every role to reads only: a write marked so still meets the role checks below.
  if (rule === 'any' && read) return;
  if (rule === 'admin') throw forbidden('Token management needs an admin token');
  if (!read && principal.role === 'read') throw forbidden(`Token '${principal.name}' has the read role: it may only read`);
  if (!read && rule === 'master' && principal.role === 'store') {
    throw forbidden('Master data is written by integration or admin tokens; store tokens only read it');
  }
  if (rule === 'store' && storeNumber !== undefined) assertStoreAccess(principal, storeNumber);
}
