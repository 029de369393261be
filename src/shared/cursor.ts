import { createHmac, timingSafeEqual } from 'node:crypto';
import { validationFailed } from './errors.js';

export interface CursorPosition {
  /** Internal id of the last record of the page already served. */
  afterId: number;
  /** Page number the next page carries. */
  page: number;
  /** Page size of the page that issued the cursor: the next page keeps it unless told otherwise. */
  pageSize: number;
  /** Fingerprint of the resource and filters the cursor was made for. */
  scope: string;
  /**
   * The moment a pull started, for lists read "as of" it (receipts: every page shows what
   * changed before it and hands it out as server_time); absent elsewhere.
   */
  asOf?: number;
}

/**
 * Opaque keyset cursors for `scroll_id` (PRODUCT §3.1): the position plus an HMAC, so
 * a tampered or foreign cursor is a 400 and never a silently wrong page. The secret is
 * kept in the database, so every process behind one database accepts the others' cursors.
 */
export class CursorCodec {
  constructor(private readonly secret: string) {}

  encode(position: CursorPosition): string {
    const fields: unknown[] = [position.afterId, position.page, position.scope, position.pageSize];
    if (position.asOf !== undefined) fields.push(position.asOf);
    const body = Buffer.from(JSON.stringify(fields)).toString('base64url');
    return `${body}.${this.sign(body)}`;
  }

  decode(cursor: string, expectedScope: string): CursorPosition {
    const [body, signature, extra] = cursor.split('.');
    const invalid = () =>
      validationFailed('scroll_id is not a cursor this service issued for this list', [
        { path: 'query.scroll_id', message: 'is invalid or was issued for other filters' },
      ]);
    if (!body || !signature || extra !== undefined) throw invalid();
    const expected = Buffer.from(this.sign(body));
    const given = Buffer.from(signature);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw invalid();
    let parsed: unknown;
    try {
      parsed = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
    } catch {
      throw invalid();
    }
    if (!Array.isArray(parsed) || (parsed.length !== 4 && parsed.length !== 5)) throw invalid();
    const [afterId, page, scope, pageSize, asOf] = parsed as [unknown, unknown, unknown, unknown, unknown];
    if (
      !Number.isSafeInteger(afterId) ||
      !Number.isSafeInteger(page) ||
      !Number.isSafeInteger(pageSize) ||
      scope !== expectedScope
    ) {
      throw invalid();
    }
    if (asOf !== undefined && !Number.isSafeInteger(asOf)) throw invalid();
    const position: CursorPosition = {
      afterId: afterId as number,
      page: page as number,
      pageSize: pageSize as number,
      scope,
    };
    if (asOf !== undefined) position.asOf = asOf as number;
    return position;
  }

  private sign(body: string): string {
    return createHmac('sha256', this.secret).update(body).digest('base64url').slice(0, 32);
  }
}
