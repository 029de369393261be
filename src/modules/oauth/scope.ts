import type { Role } from '../../shared/access.js';

/**
 * The scope vocabulary of our access tokens (issue 41, docs/security.md "Scopes"). A scope
 * says what a token may do in the words of PRODUCT §4's roles, so a token's `scope` claim
 * alone gives its role and stores — no database read to admit it:
 * - one role word: `admin`, `integration`, `read` or `store`;
 * - `store:<number>` (store clients only): a store the token may use, one word per store.
 * A client may be given its own role or one below it (admin ⊃ integration ⊃ read); a store
 * client only `store`, for all or some of its stores (`read` would see every store: a
 * widening). `.default` or a word ending in `/.default` (Entra ID's way of asking for "what
 * the client was registered with") asks for the client's own scope, so a client configured
 * for Entra works here unchanged. Anything else is `invalid_scope`.
 */

export const STORE_SCOPE_PREFIX = 'store:';

/** The role words, in the order of SCOPES_SUPPORTED. */
export const ROLE_SCOPES = ['admin', 'integration', 'read', 'store'] as const satisfies readonly Role[];

/** What each role may be narrowed to (itself first). */
const NARROWER: Record<Role, readonly Role[]> = {
  admin: ['admin', 'integration', 'read'],
  integration: ['integration', 'read'],
  read: ['read'],
  store: ['store'],
};

/** What a token may do: a role and, for the store role, its stores. */
export interface Grant {
  role: Role;
  /** Store numbers (store role); null: every store. */
  stores: readonly string[] | null;
}

export type ScopeResult = { grant: Grant; scope: string } | { error: string };

/** RFC 6749 §3.3 scope-token characters: printable ASCII except space, `"` and `\`. */
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

const isRole = (word: string): word is Role => (ROLE_SCOPES as readonly string[]).includes(word);

/** The scope string of a grant: the role word, then one `store:<n>` per store. */
export function scopeOf(grant: Grant): string {
  return grant.role === 'store'
    ? [grant.role, ...(grant.stores ?? []).map((s) => `${STORE_SCOPE_PREFIX}${s}`)].join(' ')
    : grant.role;
}

/**
 * The grant a request for `requested` gets from a client of grant `ceiling`: the ceiling
 * itself when nothing (or `.default`) is asked, else the narrower grant asked for, or why not.
 */
export function narrow(ceiling: Grant, requested: string | undefined): ScopeResult {
  if (requested === undefined || requested.trim() === '') return { grant: ceiling, scope: scopeOf(ceiling) };
  const words = [...new Set(requested.split(' ').filter((w) => w !== ''))];
  let role: Role | undefined;
  const stores: string[] = [];
  let asksDefault = false;
  for (const word of words) {
    if (!SCOPE_TOKEN.test(word)) return { error: 'The scope holds characters RFC 6749 §3.3 does not allow' };
    if (word === '.default' || word.endsWith('/.default')) asksDefault = true;
    else if (isRole(word)) {
      if (role !== undefined) return { error: `Ask for one role, not '${role}' and '${word}'` };
      role = word;
    } else if (word.startsWith(STORE_SCOPE_PREFIX) && word.length > STORE_SCOPE_PREFIX.length)
      stores.push(word.slice(STORE_SCOPE_PREFIX.length));
    else return { error: `Unknown scope '${word.slice(0, 100)}' (docs/security.md lists the scopes)` };
  }
  if (asksDefault && role === undefined && stores.length === 0) return { grant: ceiling, scope: scopeOf(ceiling) };
  const wanted = role ?? ceiling.role;
  if (!NARROWER[ceiling.role].includes(wanted))
    return { error: `This client may not have the '${wanted}' scope (its scope is '${scopeOf(ceiling)}')` };
  if (wanted !== 'store') {
    if (stores.length > 0) return { error: 'store:<number> scopes are for store clients only' };
    return { grant: { role: wanted, stores: null }, scope: wanted };
  }
  if (stores.length === 0) return { grant: ceiling, scope: scopeOf(ceiling) };
  const held = new Set(ceiling.stores ?? []);
  const missing = stores.filter((s) => !held.has(s));
  if (missing.length > 0) return { error: `This client has no access to store '${missing[0]!.slice(0, 64)}'` };
  const grant = { role: 'store' as const, stores };
  return { grant, scope: scopeOf(grant) };
}

/**
 * The grant of a verified token's `scope` claim (the inverse of scopeOf), or undefined for
 * one this service never issues.
 */
export function grantOfScope(scope: unknown): Grant | undefined {
  if (typeof scope !== 'string') return undefined;
  const [role, ...rest] = scope.split(' ');
  if (role === undefined || !isRole(role)) return undefined;
  if (role !== 'store') return rest.length === 0 ? { role, stores: null } : undefined;
  const stores: string[] = [];
  for (const word of rest) {
    if (!word.startsWith(STORE_SCOPE_PREFIX) || word.length === STORE_SCOPE_PREFIX.length) return undefined;
    stores.push(word.slice(STORE_SCOPE_PREFIX.length));
  }
  return { role, stores };
}
