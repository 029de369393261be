import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { formatOptionalDateTime } from '../../domain/datetime.js';
import { ROLES, type Role } from '../../shared/access.js';
import * as repo from './repository.js';
import type { ClientRow } from './repository.js';
import { narrow, type Grant } from './scope.js';

/**
 * API clients (issue 41, PRODUCT §4 "OAuth2 client credentials"): registered by an admin with
 * a role, an optional store list and an optional narrowing scope, like a token. The client_id
 * is public; the secret (32 random bytes) is shown once and kept only as its SHA-256 — a hash
 * of a high-entropy secret needs no slow hash, as for tokens.
 */

/** How long a rotated-out secret keeps working (docs/security.md "Rotating a secret"). */
export const SECRET_GRACE_MILLIS = 24 * 60 * 60 * 1000;

const hashSecret = (secret: string) => createHash('sha256').update(secret).digest();
const hashHex = (secret: string) => hashSecret(secret).toString('hex');

function generateClientId(): string {
  return `soc_${randomBytes(16).toString('hex')}`;
}

function generateSecret(): string {
  return `socs_${randomBytes(32).toString('base64url')}`;
}

export class ClientInputError extends Error {}
export class ClientNameTakenError extends Error {}

export interface CreateClientInput {
  name: string;
  role: Role;
  stores?: string[] | null;
  scope?: string | null;
  createdBy: string;
}

/** The grant a client may be given at most: its role and stores, narrowed by its registered scope. */
export function clientCeiling(row: Pick<ClientRow, 'role' | 'stores' | 'scope'>): Grant | undefined {
  if (!(ROLES as readonly string[]).includes(row.role)) return undefined;
  const base: Grant = {
    role: row.role as Role,
    stores: row.role === 'store' ? (row.stores ? (JSON.parse(row.stores) as string[]) : []) : null,
  };
  if (row.scope === null) return base;
  const narrowed = narrow(base, row.scope);
  return 'grant' in narrowed ? narrowed.grant : undefined;
}

function checkInput(input: CreateClientInput): { stores: string[] | null; scope: string | null } {
  const name = input.name;
  if (name.trim() === '' || name.length > 100 || /[\0-\x1f\x7f]/.test(name))
    throw new ClientInputError('The name must be 1 to 100 characters, without control characters');
  const stores = input.stores && input.stores.length > 0 ? [...new Set(input.stores)] : null;
  if (input.role === 'store' && stores === null) throw new ClientInputError('A store client needs its stores');
  if (input.role !== 'store' && stores !== null) throw new ClientInputError('Only a store client has a store list');
  let scope: string | null = null;
  if (input.scope !== undefined && input.scope !== null && input.scope.trim() !== '') {
    const narrowed = narrow({ role: input.role, stores }, input.scope);
    if ('error' in narrowed) throw new ClientInputError(`scope: ${narrowed.error}`);
    scope = narrowed.scope;
  }
  return { stores, scope };
}

export interface CreatedClient {
  name: string;
  client_id: string;
  client_secret: string;
}

/** Registers a client; the answer holds its secret, the only time it exists outside the caller. */
export async function createClient(db: Kysely<Database>, input: CreateClientInput): Promise<CreatedClient> {
  const { stores, scope } = checkInput(input);
  const clientId = generateClientId();
  const secret = generateSecret();
  const inserted = await repo.insertClient(db, {
    name: input.name,
    clientId,
    role: input.role,
    stores,
    scope,
    secretHash: hashHex(secret),
    createdOn: Date.now(),
    createdBy: input.createdBy,
  });
  if (!inserted) throw new ClientNameTakenError(`A client named '${input.name}' already exists`);
  return { name: input.name, client_id: clientId, client_secret: secret };
}

export interface RotatedSecret {
  name: string;
  client_id: string;
  client_secret: string;
  /** Until when the previous secret still works. */
  previous_secret_valid_until: string;
}

/** A new secret; the current one keeps working for SECRET_GRACE_MILLIS. Undefined: no live client of that name. */
export async function rotateClientSecret(
  db: Kysely<Database>,
  name: string,
  now = Date.now(),
): Promise<RotatedSecret | undefined> {
  const row = await repo.findClientByName(db, name);
  if (!row || row.revoked_at !== null) return undefined;
  const secret = generateSecret();
  const graceUntil = now + SECRET_GRACE_MILLIS;
  if (!(await repo.rotateSecret(db, name, hashHex(secret), now, graceUntil))) return undefined;
  return {
    name,
    client_id: row.client_id,
    client_secret: secret,
    previous_secret_valid_until: formatOptionalDateTime(graceUntil)!,
  };
}

/** Revokes a client for good: no token any more, and its tokens are refused within a second everywhere. */
export const revokeClient = (db: Kysely<Database>, name: string, now = Date.now()) => repo.revokeClient(db, name, now);

export interface ClientSummary {
  name: string;
  client_id: string;
  role: string;
  stores: string[] | null;
  scope: string | null;
  created_on: string;
  created_by: string;
  secret_rotated_on: string | null;
  previous_secret_valid_until: string | null;
  revoked: string | null;
}

export function summarise(row: ClientRow, now = Date.now()): ClientSummary {
  const graceOpen =
    row.previous_secret_hash !== null &&
    row.previous_secret_expires_at !== null &&
    row.previous_secret_expires_at > now;
  return {
    name: row.name,
    client_id: row.client_id,
    role: row.role,
    stores: row.stores ? (JSON.parse(row.stores) as string[]) : null,
    scope: row.scope,
    created_on: formatOptionalDateTime(row.created_on)!,
    created_by: row.created_by,
    secret_rotated_on: formatOptionalDateTime(row.secret_rotated_on) ?? null,
    previous_secret_valid_until: graceOpen ? formatOptionalDateTime(row.previous_secret_expires_at)! : null,
    revoked: formatOptionalDateTime(row.revoked_at) ?? null,
  };
}

export async function listClientSummaries(db: Kysely<Database>): Promise<ClientSummary[]> {
  const now = Date.now();
  return (await repo.listClients(db)).map((row) => summarise(row, now));
}

function sameHash(hex: string, secret: string): boolean {
  const stored = Buffer.from(hex, 'hex');
  const given = hashSecret(secret);
  return stored.length === given.length && timingSafeEqual(stored, given);
}

/** The live client whose id and secret these are (the current one, or the previous within its grace period). */
export async function authenticateClient(
  db: Kysely<Database>,
  clientId: string,
  secret: string,
  now = Date.now(),
): Promise<ClientRow | undefined> {
  if (clientId.length > 200 || secret.length > 500) return undefined;
  const row = await repo.findClientById(db, clientId);
  // Hashing happens whether or not the client exists, so timing does not tell ids apart.
  const current = sameHash(row?.secret_hash ?? '00'.repeat(32), secret);
  if (!row || row.revoked_at !== null) return undefined;
  if (current) return row;
  const previousOpen =
    row.previous_secret_hash !== null &&
    row.previous_secret_expires_at !== null &&
    row.previous_secret_expires_at > now;
  return previousOpen && sameHash(row.previous_secret_hash!, secret) ? row : undefined;
}
