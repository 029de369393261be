import { createHash, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { ROLES, type Principal, type Role } from '../../shared/access.js';
import { formatOptionalDateTime } from '../../domain/datetime.js';
import * as tokens from './repository.js';
import type { TokenRow } from './rows.js';
import type { CurrentToken } from './schema.js';

/** Name of the token that `STORE_OPS_ADMIN_TOKEN` (or the first start) provides. */
const BOOTSTRAP_ADMIN_NAME = 'admin';

/** Opaque random token, ≥ 32 bytes of entropy, prefix `sot_` (PRODUCT §4). */
function generateTokenValue(): string {
  return `sot_${randomBytes(32).toString('base64url')}`;
}

/** Only this hash is ever stored. */
export function hashToken(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

export interface CreateTokenInput {
  name: string;
  role: Role;
  stores?: string[] | null;
  expiresAt?: number | null;
  createdBy: string;
}

export class TokenNameTakenError extends Error {}

/** Creates a token and returns its value: the only time the value exists outside the caller. */
export async function createToken(db: Kysely<Database>, input: CreateTokenInput): Promise<string> {
  const value = generateTokenValue();
  const inserted = await tokens.insertToken(db, {
    name: input.name,
    role: input.role,
    stores: input.stores && input.stores.length > 0 ? input.stores : null,
    tokenHash: hashToken(value),
    expiresAt: input.expiresAt ?? null,
    createdOn: Date.now(),
    createdBy: input.createdBy,
  });
  if (!inserted) throw new TokenNameTakenError(`A token named '${input.name}' already exists`);
  return value;
}

/**
 * First-start credential (PRODUCT §2): with `STORE_OPS_ADMIN_TOKEN` the `admin` token
 * carries that value (a restart with the same value changes nothing); without it, a
 * database with no token at all gets a generated one, returned so it can be printed once.
 */
export async function ensureBootstrapAdmin(
  db: Kysely<Database>,
  configuredValue: string | undefined,
): Promise<string | undefined> {
  if (configuredValue !== undefined) {
    const tokenHash = hashToken(configuredValue);
    if (await tokens.findTokenByHash(db, tokenHash)) return undefined;
    const inserted = await tokens.insertToken(db, {
      name: BOOTSTRAP_ADMIN_NAME,
      role: 'admin',
      stores: null,
      tokenHash,
      expiresAt: null,
      createdOn: Date.now(),
      createdBy: 'STORE_OPS_ADMIN_TOKEN',
    });
    if (!inserted) await tokens.replaceTokenHash(db, BOOTSTRAP_ADMIN_NAME, tokenHash);
    return undefined;
  }
  if ((await tokens.countTokens(db)) > 0) return undefined;
  const value = generateTokenValue();
  const inserted = await tokens.insertToken(db, {
    name: BOOTSTRAP_ADMIN_NAME,
    role: 'admin',
    stores: null,
    tokenHash: hashToken(value),
    expiresAt: null,
    createdOn: Date.now(),
    createdBy: 'first-start',
  });
  return inserted ? value : undefined;
}

/** The caller a token value stands for, or why it stands for nobody. */
export type Authentication = { principal: Principal } | { failure: string };

export function principalFromRow(row: TokenRow, now: number): Authentication {
  if (row.revoked_at !== null) return { failure: 'The token has been revoked' };
  if (row.expires_at !== null && row.expires_at <= now) return { failure: 'The token has expired' };
  if (!isRole(row.role)) return { failure: 'The token has an unknown role' };
  return {
    principal: {
      key: `token ${row.id}`,
      kind: 'token',
      tokenId: row.id,
      expiresAt: row.expires_at,
      name: row.name,
      role: row.role,
      stores: row.stores ? (JSON.parse(row.stores) as string[]) : null,
    },
  };
}

export interface TokenSummary {
  name: string;
  role: string;
  stores: string[] | null;
  expires: string | null;
  revoked: string | null;
  created_on: string;
  created_by: string;
}

export async function listTokenSummaries(db: Kysely<Database>): Promise<TokenSummary[]> {
  return (await tokens.listTokens(db)).map((row) => ({
    name: row.name,
    role: row.role,
    stores: row.stores ? (JSON.parse(row.stores) as string[]) : null,
    expires: formatOptionalDateTime(row.expires_at) ?? null,
    revoked: formatOptionalDateTime(row.revoked_at) ?? null,
    created_on: formatOptionalDateTime(row.created_on)!,
    created_by: row.created_by,
  }));
}

/** GET /tokens/current: the authenticated token as its holder may see it (never its value or hash). */
export async function describeToken(db: Kysely<Database>, principal: Principal): Promise<CurrentToken> {
  const stores = principal.role === 'store' ? [...(principal.stores ?? [])] : null;
  // A JWT caller (an OAuth2 client's access token, an external issuer's) has no row: its
  // principal carries all there is, the token's own expiry included.
  if (principal.kind !== 'token') {
    return {
      name: principal.name,
      role: principal.role,
      stores,
      expires_at: formatOptionalDateTime(principal.expiresAt ?? null) ?? null,
      kind: principal.kind,
      ...(principal.clientId !== undefined ? { client_id: principal.clientId } : {}),
    };
  }
  // The principal was admitted moments ago; the row adds the expiry it does not carry.
  const row = await tokens.findTokenById(db, principal.tokenId);
  return {
    name: principal.name,
    role: principal.role,
    stores,
    expires_at: formatOptionalDateTime(row?.expires_at) ?? null,
  };
}

export const revokeToken = (db: Kysely<Database>, name: string) => tokens.revokeToken(db, name, Date.now());
