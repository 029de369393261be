import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../db/schema.js';
import { type PoolPart, signPoolParts, splitIntoPools } from '../domain/stock-rules.js';
import type { Principal } from '../shared/access.js';
import type { FieldError } from '../shared/validation.js';
import { bookEntriesWithMoments } from './book.js';
import type { Ledger } from './ledger.js';
import type {
  Booked,
  BookingLocation,
  BookingProduct,
  BookingReason,
  BookingStore,
  EntryDraft,
  OrderNumberRef,
  ReceivingCandidate,
} from './types.js';

/**
 * The ledger's one intake: every stock operation (log entries, counts, movements, picking,
 * receiving, external counting, and the next ones) hands its lines here by natural key and
 * gets back what they name, with every field error of the request at once, worded once. The
 * look-ups and the order-bound guard are the modules' own, lent to the kernel (ledger.ts,
 * wired in create-context.ts): an operation imports the ledger and its own files, nothing else.
 *
 *   schema → routes → lines to intents (the module) → resolveLines → drafts → book
 */

/** A key a line names, with the request field that names it (the path of its error). */
export interface KeyRef<Key> {
  key: Key;
  path: string;
}

/** What one line names by natural key; each part is optional. */
export interface IntakeLine {
  /** Its product by number (a client's line). */
  product?: KeyRef<string>;
  /** Its reason code; `sent` is the code as the request spelt it, when not a number (`"0042"`). */
  reason?: KeyRef<number> & { sent?: string };
  /** Locations of the request's store, in the order the line names them (a movement: from, to). */
  locations?: ReadonlyArray<KeyRef<string> | undefined>;
  /** Order numbers it books under: refused where they name a customer order of the store (PRODUCT §5). */
  orderNumbers?: readonly OrderNumberRef[];
  /** Its `source`: the customer order's own are refused (PRODUCT §5). */
  source?: KeyRef<string | undefined>;
}

/** What a line names, resolved; undefined where it named nothing or something unknown (then in `errors`). */
export interface ResolvedLine {
  product: BookingProduct | undefined;
  reason: BookingReason | undefined;
  locations: Array<BookingLocation | undefined>;
  /** This line's field errors, in the order of its fields. */
  errors: FieldError[];
}

export interface Resolution {
  lines: ResolvedLine[];
  /** The refusals of order-bound stock and reserved sources, the request's first errors. */
  refusals: FieldError[];
  /** Every field error of the request: the order-bound and reserved-source refusals first, then each line's. */
  errors: FieldError[];
}

export interface IntakeRules {
  /** Only reason codes of this type (interface §2.6): a movement names a type-3 code. */
  reasonType?: { type: number; name: string };
}

/** The live store of the request's path or body (404 otherwise), read before its transaction. */
export function requireStore(ledger: Ledger, db: Kysely<Database>, storeNumber: string): Promise<BookingStore> {
  return ledger.policies.lookups.liveStore(db, storeNumber);
}

/**
 * Resolves the lines' products, reason codes and locations in the store, and takes the turns
 * of the order numbers they book under (so an order import naming one waits for this
 * transaction, or this one sees the order). Refuses nothing itself: the caller throws
 * `errors` with its own summary, after any check of its own that must come first.
 */
export async function resolveLines(
  trx: Transaction<Database>,
  ledger: Ledger,
  storeId: number,
  lines: readonly IntakeLine[],
  rules: IntakeRules = {},
): Promise<Resolution> {
  const { lookups, orderBinding } = ledger.policies;
  const products = await lookups.productsByNumber(
    trx,
    lines.flatMap((line) => (line.product ? [line.product.key] : [])),
  );
  const reasons = await lookups.reasonCodes(
    trx,
    lines.flatMap((line) => (line.reason ? [line.reason.key] : [])),
  );
  const locations = await lookups.locations(
    trx,
    storeId,
    lines.flatMap((line) => (line.locations ?? []).flatMap((ref) => (ref ? [ref.key] : []))),
  );
  const refusals: FieldError[] = [
    ...(await orderBinding.refusals(
      trx,
      ledger.dialect,
      storeId,
      lines.flatMap((line) => line.orderNumbers ?? []),
    )),
    ...lines.flatMap(({ source }) =>
      source?.key !== undefined && orderBinding.reservedSources.has(source.key)
        ? [{ path: source.path, message: `'${source.key}' is reserved for the customer order's own bookings` }]
        : [],
    ),
  ];
  const errors = [...refusals];
  const resolved = lines.map((line): ResolvedLine => {
    const lineErrors: FieldError[] = [];
    const product = line.product ? products.get(line.product.key) : undefined;
    if (line.product && !product)
      lineErrors.push({ path: line.product.path, message: `unknown product '${line.product.key}'` });
    const reason = line.reason ? reasons.get(line.reason.key) : undefined;
    if (line.reason && !reason)
      lineErrors.push({
        path: line.reason.path,
        message: `unknown reason code ${line.reason.sent ?? line.reason.key}`,
      });
    const wanted = rules.reasonType;
    if (line.reason && reason && wanted && reason.reason_code_type !== wanted.type)
      lineErrors.push({
        path: line.reason.path,
        message: `reason code ${reason.reason_code} is of type ${reason.reason_code_type}, not a ${wanted.name} code (type ${wanted.type})`,
      });
    const named = (line.locations ?? []).map((ref) => {
      const location = ref ? locations.get(ref.key) : undefined;
      if (ref && !location) lineErrors.push({ path: ref.path, message: `unknown location '${ref.key}' in this store` });
      return location;
    });
    errors.push(...lineErrors);
    return { product, reason, locations: named, errors: lineErrors };
  });
  return { lines: resolved, refusals, errors };
}

/** A logged line's quantity as sent: a delta or a counted level, split over pools or not. */
export interface LoggedQuantity {
  quantityMilli: number;
  isCount: boolean;
  /** The pool the whole quantity goes to (`pool_location`), if named. */
  poolLocation?: number;
  /** stock_pool_1..10 as sent (thousandths), undefined where not sent. */
  poolQuantitiesMilli: ReadonlyArray<number | undefined>;
}

/**
 * The stock of a logged line (PRODUCT §5): its pools — as sent, else the pool its location
 * defaults to — signed by its reason code (loss out, gain in; a count is a level, not a
 * movement, so it is never signed, and a zero delta books nothing while a zero count is a
 * fact), and pending when the reason code wants review. The split was checked with the
 * request (a split that does not add up is a 400 before any look-up).
 */
export function loggedStock(
  quantity: LoggedQuantity,
  reason: BookingReason | undefined,
  location: BookingLocation | undefined,
): { poolParts: PoolPart[]; pending: boolean } {
  const split = splitIntoPools({
    quantityMilli: quantity.quantityMilli,
    poolLocation: quantity.poolLocation,
    locationDefaultPool: location?.default_stock_pool ?? undefined,
    poolDeltasMilli: quantity.poolQuantitiesMilli,
  });
  const unsigned = split.ok ? split.parts : [];
  const poolParts = quantity.isCount
    ? unsigned
    : signPoolParts(
        unsigned,
        reason ? { isLoss: reason.is_loss === 1, isGain: reason.is_gain === 1 } : undefined,
      ).filter((part) => part.quantityMilli !== 0);
  return { poolParts, pending: reason?.default_review_status === 1 };
}

/**
 * Books the drafts; receipt entries naming a delivery of the store receive on it (PRODUCT §7):
 * the receipt is planned before the booking (it may set pools, or refuse) and written after
 * it, in the same transaction. Returns the booking and how many entries received.
 */
export async function bookReceiving(
  trx: Transaction<Database>,
  ledger: Ledger,
  store: BookingStore,
  drafts: EntryDraft[],
  candidates: readonly ReceivingCandidate[],
  by: Principal,
  now: number,
): Promise<{ booked: Booked; received: number }> {
  const receiving = ledger.policies.receiving;
  const plan =
    candidates.length > 0 ? await receiving.plan(trx, ledger.dialect, store.id, drafts, candidates) : undefined;
  const booked = await bookEntriesWithMoments(trx, ledger, store, drafts, by, now);
  if (plan) await receiving.finish(trx, ledger, plan, drafts, booked, by, now);
  return { booked, received: plan?.items.length ?? 0 };
}
