import { Type, type Static } from '@sinclair/typebox';
import {
  BulkArray,
  EventDateTime,
  PageQueryProperties,
  PagedResponse,
  Quantity,
  StoreNumberParams,
  TextId,
} from '../../shared/schemas.js';
import { StoreRef } from '../../shared/access.js';

/** Field names capitalised as written in the interface (§4.13). */
export const ExternalCountingBody = Type.Object({
  CountingDateTime: EventDateTime({ description: 'The moment the count describes' }),
  StoreNo: Type.Optional(StoreRef({ description: 'Required in practice: the store that was counted' })),
  // PRODUCT §3 Limits: 10,000 items per bulk request, counting lines included. A bigger count
  // is sent in several requests, all lines of one product in the same one (docs/decisions.md).
  Lines: Type.Optional(
    BulkArray(
      Type.Object({
        counted_quantity: Quantity({
          minimum: 0,
          description: 'Scanned quantity; a unit barcode counts unit_quantity each',
        }),
        product_barcode: Type.Optional(TextId(64)),
      }),
      {
        description:
          'At most 10,000 lines per request; every line of one product belongs in the same request (its lines add up)',
      },
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
