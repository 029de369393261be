import { Type, type Static } from '@sinclair/typebox';
import { DateTime, PageQueryProperties, PagedResponse, Quantity, StoreNumberParams, TextId } from '../../shared/schemas.js';

/**
 * A full-store count is tens of thousands of scans, so counting lines may exceed the
 * 10,000 items of a master-data bulk request (decision in docs/decisions.md).
 */
export const MAX_COUNTING_LINES = 100_000;

/** Field names capitalised as written in the interface (§4.13). */
export const ExternalCountingBody = Type.Object({
  CountingDateTime: DateTime({ description: 'The moment the count describes' }),
  StoreNo: Type.Optional(TextId(64, { description: 'Required in practice: the store that was counted' })),
  Lines: Type.Optional(
    Type.Array(
      Type.Object({
        counted_quantity: Quantity({ minimum: 0, description: 'Scanned quantity; a unit barcode counts unit_quantity each' }),
        product_barcode: Type.Optional(TextId(64)),
      }),
      { maxItems: MAX_COUNTING_LINES },
    ),
  ),
});
export type ExternalCountingBody = Static<typeof ExternalCountingBody>;

export const UnresolvedLine = Type.Object({
  barcode: Type.String(),
  counted_quantity: Type.Number(),
  counting_datetime: Type.String(),
  received_on: Type.String(),
});

export const UnresolvedQuery = Type.Object({ ...PageQueryProperties });
export type UnresolvedQuery = Static<typeof UnresolvedQuery>;
export const UnresolvedPage = PagedResponse(UnresolvedLine);
export const UnresolvedParams = StoreNumberParams;
