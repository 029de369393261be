import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type JWK } from 'jose';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { insertSigningKey, listSigningKeys, type SigningKeyRow } from './repository.js';

/**
 * Signing keys of our access tokens (issue 41, docs/security.md "Signing keys"), kept in the
 * database so every process signs and verifies with the same ones. RS256 (RSA 2048): the
 * algorithm RFC 9068 requires every resource server to support, and the cheapest to verify.
 * The key whose signing has not ended signs (the newest, if two processes raced at a first
 * start: both verify). Rotation ends the signer's signing and adds a new one; the old key
 * keeps verifying for the longest lifetime a token may have (OAUTH_ACCESS_TOKEN_SECONDS is at
 * most a day) plus the clock skew, then it is deleted.
 */
export const SIGNING_ALGORITHM = 'RS256';

/** The longest any process may make a token live (config: at most 86400 s), plus a margin for skew. */
export const KEY_VERIFY_MILLIS_AFTER_SIGNING = (86_400 + 120) * 1000;

async function newKeyRow(now: number): Promise<SigningKeyRow> {
  const { publicKey, privateKey } = await generateKeyPair(SIGNING_ALGORITHM, {
    modulusLength: 2048,
    extractable: true,
  });
  const publicJwk = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(publicJwk);
  return {
    kid,
    algorithm: SIGNING_ALGORITHM,
    public_jwk: JSON.stringify({ ...publicJwk, kid, alg: SIGNING_ALGORITHM, use: 'sig' }),
    private_jwk: JSON.stringify(await exportJWK(privateKey)),
    created_at: now,
    signing_ended_at: null,
    verify_until: null,
  };
}

/** A first start: the database gets its first signing key. */
export async function ensureSigningKey(db: Kysely<Database>, now = Date.now()): Promise<void> {
  const keys = await listSigningKeys(db);
  if (keys.some((k) => k.signing_ended_at === null)) return;
  await insertSigningKey(db, await newKeyRow(now));
}

export interface RotationResult {
  kid: string;
  /** Keys that stopped signing now (they verify until `verifyUntil`). */
  ended: string[];
  /** Keys deleted: every token they signed has expired. */
  retired: string[];
  verifyUntil: number;
}

/** Key rotation: a new key signs from now on; the old ones verify until their tokens expired. */
export async function rotateSigningKey(db: Kysely<Database>, now = Date.now()): Promise<RotationResult> {
  const row = await newKeyRow(now);
  const verifyUntil = now + KEY_VERIFY_MILLIS_AFTER_SIGNING;
  return db.transaction().execute(async (trx) => {
    const ended = await trx
      .updateTable('oauth_signing_keys')
      .set({ signing_ended_at: now, verify_until: verifyUntil })
      .where('signing_ended_at', 'is', null)
      .returning('kid')
      .execute();
    const retired = await trx
      .deleteFrom('oauth_signing_keys')
      .where('verify_until', '<', now)
      .returning('kid')
      .execute();
    await insertSigningKey(trx, row);
    return { kid: row.kid, ended: ended.map((r) => r.kid), retired: retired.map((r) => r.kid), verifyUntil };
  });
}

/** Deletes the keys past their verification time (also done by every rotation). */
export async function retireExpiredKeys(db: Kysely<Database>, now = Date.now()): Promise<string[]> {
  const rows = await db.deleteFrom('oauth_signing_keys').where('verify_until', '<', now).returning('kid').execute();
  return rows.map((r) => r.kid);
}

export interface KeySummary {
  kid: string;
  algorithm: string;
  created_at: number;
  signing: boolean;
  verify_until: number | null;
}

export async function listKeySummaries(db: Kysely<Database>): Promise<KeySummary[]> {
  return (await listSigningKeys(db)).map((k) => ({
    kid: k.kid,
    algorithm: k.algorithm,
    created_at: k.created_at,
    signing: k.signing_ended_at === null,
    verify_until: k.verify_until,
  }));
}

type Key = Awaited<ReturnType<typeof importJWK>>;

/** A key that verifies, as held in memory. */
interface VerifyingKey {
  key: Key;
  /** null: still signing. */
  verifyUntil: number | null;
}

/** How often a process rereads the keys without being asked (a rotation's new key, a retirement). */
const KEY_RELOAD_MILLIS = 60_000;
/** An unknown `kid` rereads the keys, at most this often (garbage kids cost one read per second). */
const UNKNOWN_KID_RELOAD_MILLIS = 1000;

/**
 * This process's copy of the keys: the verifying (public) keys by kid, reloaded when a token
 * names a kid it does not know (at most once a second) and every minute; the private key of
 * the signer, read when a token is issued (the token endpoint reads the database anyway).
 */
export class KeyStore {
  private keys = new Map<string, VerifyingKey>();
  private loadedAt = 0;
  private loading: Promise<void> | undefined;
  private signer: { kid: string; key: Key } | undefined;

  constructor(private readonly db: Kysely<Database>) {}

  private reload(): Promise<void> {
    this.loading ??= (async () => {
      const at = Date.now();
      try {
        const rows = await listSigningKeys(this.db);
        const keys = new Map<string, VerifyingKey>();
        for (const row of rows) {
          const known = this.keys.get(row.kid);
          const key = known?.key ?? (await importJWK(JSON.parse(row.public_jwk) as JWK, row.algorithm));
          keys.set(row.kid, { key, verifyUntil: row.verify_until });
        }
        this.keys = keys;
      } finally {
        this.loadedAt = at;
        this.loading = undefined;
      }
    })();
    return this.loading;
  }

  /** The public key of `kid`, if it still verifies. */
  async verifyingKey(kid: string | undefined, now = Date.now()): Promise<Key | undefined> {
    if (kid === undefined) return undefined;
    let found = this.keys.get(kid);
    if (found === undefined) {
      // A key another process just made (a rotation) is read at the next allowed reread: a
      // token of it waits at most a second rather than being refused; garbage kids share it.
      const wait = this.loadedAt + UNKNOWN_KID_RELOAD_MILLIS - now;
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      if (!this.keys.has(kid) && Date.now() - this.loadedAt >= UNKNOWN_KID_RELOAD_MILLIS) await this.reload();
      else if (this.loading !== undefined) await this.loading;
      found = this.keys.get(kid);
    } else if (now - this.loadedAt >= KEY_RELOAD_MILLIS) {
      // Not waited for: the key in hand verifies now; the reread catches a retirement.
      this.reload().catch(() => undefined);
    }
    if (found === undefined || (found.verifyUntil !== null && found.verifyUntil < now)) return undefined;
    return found.key;
  }

  /** The signing key: the newest whose signing has not ended (created if the database has none). */
  async signingKey(): Promise<{ kid: string; key: Key }> {
    let rows = await listSigningKeys(this.db);
    if (!rows.some((r) => r.signing_ended_at === null)) {
      await ensureSigningKey(this.db);
      rows = await listSigningKeys(this.db);
    }
    const row = rows.filter((r) => r.signing_ended_at === null).at(-1)!;
    if (this.signer?.kid !== row.kid) {
      this.signer = { kid: row.kid, key: await importJWK(JSON.parse(row.private_jwk) as JWK, row.algorithm) };
      // This process verifies what it signs from the first token on.
      if (!this.keys.has(row.kid))
        this.keys.set(row.kid, {
          key: await importJWK(JSON.parse(row.public_jwk) as JWK, row.algorithm),
          verifyUntil: null,
        });
    }
    return this.signer;
  }

  /** The public keys that verify now (GET /.well-known/jwks.json), read afresh. */
  async publicJwks(now = Date.now()): Promise<JWK[]> {
    const rows = await listSigningKeys(this.db);
    return rows
      .filter((r) => r.verify_until === null || r.verify_until >= now)
      .map((r) => JSON.parse(r.public_jwk) as JWK);
  }
}
