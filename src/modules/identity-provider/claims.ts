import { ROLES, type Role } from '../../shared/access.js';

/**
 * From a chain provider's access-token claims to our role and store list (issue 41, PRODUCT §4;
 * docs/security.md "Your own identity provider"). Pure: no network, no clock.
 *
 * - Roles come from the claims named in AUTH_ROLE_CLAIM (default `roles,scp`: Entra ID's app
 *   roles arrive in `roles` as an array, delegated scopes in `scp` as one space-separated
 *   string; Keycloak's mapper may give either shape). Each value is looked up in the role map
 *   (AUTH_ROLE_MAP, or by default the role's own name or `StoreOps.<Role>`), without regard to case.
 * - Several mapped roles: the widest wins when it covers the others (admin ⊇ integration ⊇
 *   store and read); `store` with `read` and nothing wider covers neither way, so it is refused.
 * - No mapped role: refused (403), never a default role.
 * - A store role takes its stores from AUTH_STORES_CLAIM (default `stores`: an array, or one
 *   string separated by commas or spaces); none → refused (403). Other roles see every store,
 *   as their `sot_` tokens do, whatever the claim says.
 */

export interface ClaimMapping {
  /** Claim names whose values name roles, in the order read. */
  roleClaims: readonly string[];
  /** Claim value (lower case) → our role. */
  roleMap: ReadonlyMap<string, Role>;
  storesClaim: string;
}

export type MappedIdentity = { role: Role; stores: string[] | null } | { refusal: string };

/** Longest store number a claim may carry (the stores table's store_number is TextId-sized). */
const MAX_STORE_NUMBER = 64;
/** Most stores one claim may list: a token is a header, not a master-data import. */
const MAX_STORES = 1000;

/** The default map: each role by its own name and as `StoreOps.<Role>` (Entra app-role style). */
export function defaultRoleMap(): Map<string, Role> {
  const map = new Map<string, Role>();
  for (const role of ROLES) {
    map.set(role, role);
    map.set(`storeops.${role}`, role);
  }
  return map;
}

/** `StoreOps.Admin=admin,Inventory.Writer=integration` → a map, or why the text is malformed. */
export function parseRoleMap(text: string): Map<string, Role> | string {
  const map = new Map<string, Role>();
  for (const pair of text
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '')) {
    const equals = pair.lastIndexOf('=');
    if (equals <= 0) return `"${pair}" is not value=role`;
    const value = pair.slice(0, equals).trim().toLowerCase();
    const role = pair.slice(equals + 1).trim();
    if (!(ROLES as readonly string[]).includes(role)) return `"${role}" is not a role (${ROLES.join(', ')})`;
    map.set(value, role as Role);
  }
  return map.size === 0 ? 'names no value=role pair' : map;
}

/** A claim as a list of words: an array of strings, or one string split by `separators`. */
function wordsOf(claim: unknown, separators: RegExp): string[] | undefined {
  if (typeof claim === 'string') return claim.split(separators).filter((word) => word !== '');
  if (Array.isArray(claim))
    return claim.every((item) => typeof item === 'string' || typeof item === 'number') ? claim.map(String) : undefined;
  return undefined;
}

/** Roles in the order of what each one covers. */
const WIDTH: Record<Role, number> = { admin: 3, integration: 2, store: 1, read: 1 };

function widestRole(roles: ReadonlySet<Role>): Role | undefined {
  const sorted = [...roles].sort((a, b) => WIDTH[b] - WIDTH[a]);
  const [first, second] = sorted;
  if (first === undefined) return undefined;
  // The only two roles of equal width cover different things: store writes its stores, read reads all.
  if (second !== undefined && WIDTH[first] === WIDTH[second]) return undefined;
  return first;
}

export function mapClaims(claims: Record<string, unknown>, mapping: ClaimMapping): MappedIdentity {
  const roles = new Set<Role>();
  for (const name of mapping.roleClaims) {
    for (const value of wordsOf(claims[name], /\s+/) ?? []) {
      const role = mapping.roleMap.get(value.toLowerCase());
      if (role !== undefined) roles.add(role);
    }
  }
  if (roles.size === 0)
    return { refusal: `The access token's claims (${mapping.roleClaims.join(', ')}) name no role of this service` };
  const role = widestRole(roles);
  if (role === undefined)
    return { refusal: `The access token's claims name both the store and the read role: neither covers the other` };
  if (role !== 'store') return { role, stores: null };
  const stores = wordsOf(claims[mapping.storesClaim], /[\s,]+/);
  if (stores === undefined || stores.length === 0)
    return { refusal: `The access token has the store role but its ${mapping.storesClaim} claim names no store` };
  if (stores.length > MAX_STORES || stores.some((store) => store.length > MAX_STORE_NUMBER)) {
    return {
      refusal: `The access token's ${mapping.storesClaim} claim lists more than ${MAX_STORES} stores or a store number longer than ${MAX_STORE_NUMBER}`,
    };
  }
  return { role, stores: [...new Set(stores)] };
}
