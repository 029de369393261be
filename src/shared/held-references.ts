import { unprocessable } from './errors.js';
import type { FieldError } from './validation.js';

/**
 * References an upsert's records hold to stored master data (PRODUCT §3 upserts).
 *
 * "Re-sending an identical payload changes nothing", and deleting a record (a product, a
 * store) only hides it from reads — history keeps it, and so do the records that name it. So
 * an upsert resolves each reference whether the named record is live or deleted, and only
 * what the request *writes* — a new or changed record or line — must name live records:
 *
 * 1. `resolve` every reference while building the records (a deleted record resolves to its
 *    id, so an unchanged record compares equal to what is stored);
 * 2. `assertKnown`: a name no record ever had is a 422 at once (no stored record can hold it);
 * 3. decide what is written (content hash, line diff), then `assertLiveWhere(written)`: a
 *    written record naming a deleted one is a 422 naming the field; an unchanged record keeps
 *    its reference, so an identical re-send stays "unchanged".
 *
 * Step 3 may come after the writes of the same transaction (upsertByKey decides and writes in
 * one go): the 422 rolls the whole request back (PRODUCT §3 atomic bulk writes).
 */

/** A master record a request names: its id, and whether it is live or deleted since. */
export interface MasterRef {
  id: number;
  live: boolean;
}

export class HeldReferences {
  private readonly unknown: FieldError[] = [];
  private readonly deleted = new Map<string, FieldError[]>();

  /**
   * The id `ref` names (undefined when nothing ever had that name: an error for assertKnown).
   * `item` keys the record or line holding the reference; `what` names the target for
   * messages (`product 'P1'`).
   */
  resolve(item: string, ref: MasterRef | undefined, path: string, what: string): number | undefined {
    if (ref === undefined) {
      this.unknown.push({ path, message: `unknown ${what}` });
      return undefined;
    }
    if (!ref.live) {
      const held = this.deleted.get(item) ?? [];
      held.push({
        path,
        message: `${what} is deleted: a new or changed record cannot name it (an unchanged one keeps it)`,
      });
      this.deleted.set(item, held);
    }
    return ref.id;
  }

  /** 422 naming every reference to a record that never existed. */
  assertKnown(message: string): void {
    if (this.unknown.length > 0) throw unprocessable(message, this.unknown);
  }

  /** 422 naming the deleted records that the written items name. */
  assertLiveWhere(written: (item: string) => boolean, message: string): void {
    const errors = [...this.deleted].flatMap(([item, held]) => (written(item) ? held : []));
    if (errors.length > 0) throw unprocessable(message, errors);
  }
}
