import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { describedPattern } from '../../shared/validation.js';
import {
  DateTime,
  Int,
  PageQueryProperties,
  PagedResponse,
  Quantity,
  Str,
  StoreNumberParams,
  TextId,
} from '../../shared/schemas.js';

/** At most this many lines in one list (and in one request): a scan list, not a catalogue. */
export const MAX_LIST_LINES = 10_000;
/** List types and module ids are small configured numbers (int32 as the interface's ids). */
const MAX_CONFIG_NUMBER = 2_147_483_647;

/**
 * Interface §4.1 / §8: only letters, digits, spaces, dots, hyphens, underscores. Letters and
 * digits of any script (store staff name lists in their own language: "Käse Regal 3"),
 * combining marks included so a decomposed "ä" is the same letter; at least one character
 * that is not a space.
 */
export const LIST_NAME_PATTERN = describedPattern(
  // Leading spaces, then a character that is not one: the parts cannot match the same text,
  // so a long invalid name fails in linear time (overlapping parts made it quadratic).
  '^ *[\\p{L}\\p{M}\\p{N}._-][\\p{L}\\p{M}\\p{N} ._-]*$',
  'may only hold letters, digits, spaces, dots, hyphens and underscores, and not only spaces',
);
export const MAX_LIST_NAME = 100;

const optional = <T extends TSchema>(schema: T) => Type.Optional(schema);

const FreeField = Type.Object({ key: Str(100, { minLength: 1 }), value: Str(2000) });
const FreeFields = Type.Array(FreeField, {
  maxItems: 100,
  description: 'Custom key/value pairs; keys unique within the list',
});

const NewLine = Type.Object({
  product_number: TextId(64, { description: 'A product of the master; a number that matches none is skipped' }),
  quantity: Quantity({ minimum: 0, description: '0 is stored as 1' }),
  barcode: optional(TextId(64, { description: 'Ignored: the line shows the product master’s barcode' })),
});

export const CreateListBody = Type.Object({
  product_list_name: Str(MAX_LIST_NAME, {
    minLength: 1,
    pattern: LIST_NAME_PATTERN,
    description: 'Letters, digits, spaces, dots, hyphens, underscores',
  }),
  product_list_type: Int({ minimum: 0, maximum: MAX_CONFIG_NUMBER, description: 'Ignored when module_id is given' }),
  module_id: optional(
    Int({
      minimum: 0,
      maximum: MAX_CONFIG_NUMBER,
      description: 'The list type is the module’s configured type (unknown module → 422)',
    }),
  ),
  free_fields: optional(FreeFields),
  is_allow_duplicate_products: optional(
    Type.Boolean({ description: 'Default true; false merges lines of one product, summing quantities' }),
  ),
  lines: optional(Type.Array(NewLine, { maxItems: MAX_LIST_LINES })),
});
export type CreateListBody = Static<typeof CreateListBody>;

export const CreateListQuery = Type.Object({
  app_username: optional(Str(255, { description: 'The in-store app user the list belongs to; default "unknown"' })),
});

export const CreatedList = Type.Object({ product_list_id: Type.Integer() });

const UpdateLine = Type.Object({
  quantity: Quantity({ minimum: 0, description: 'The line’s new quantity; 0 is stored as 1' }),
  article_no: optional(
    TextId(64, { description: 'Deprecated: use product_number (the same product when both are sent)' }),
  ),
  barcode: optional(TextId(64, { description: 'Ignored: the line shows the product master’s barcode' })),
  product_number: optional(
    TextId(64, { description: 'The product whose line is updated, or added; one that matches no product is skipped' }),
  ),
  stock_pool: optional(
    TextId(2, {
      pattern: describedPattern('^([1-9]|10)$', 'must be a stock pool, 1 to 10'),
      description: 'Pool 1 to 10 the line targets; absent keeps the line’s pool',
    }),
  ),
});
export type UpdateLineInput = Static<typeof UpdateLine>;

export const UpdateLinesBody = Type.Object({ lines: optional(Type.Array(UpdateLine, { maxItems: MAX_LIST_LINES })) });
export type UpdateLinesBody = Static<typeof UpdateLinesBody>;

export const UpdateLinesResult = Type.Object(
  {
    code: optional(Type.Integer({ description: '200' })),
    data: optional(Type.String({ description: 'The list id' })),
    message: optional(
      Type.String({ description: 'What happened: added, updated, unchanged, skipped (unknown products)' }),
    ),
    status: optional(Type.String({ description: '"success"' })),
  },
  { description: 'Line update result (interface §4.1)' },
);
export type UpdateLinesResult = Static<typeof UpdateLinesResult>;

export const ListParams = StoreNumberParams;
/** Path values are text (the router limits their length): the id is checked as digits and read as a number. */
export const ListLinesParams = Type.Object({
  store_number: Str(64),
  id: Str(15, { pattern: '^[1-9][0-9]*$', description: 'The product list id' }),
});

/** §5: the credential may also come in `api_key` on these two endpoints. */
const ApiKeyHeader = optional(Str(512, { description: 'The API token, instead of Authorization (interface §5)' }));
export const LineUpdateHeaders = Type.Object({ api_key: ApiKeyHeader });
export const DeleteHeaders = Type.Object({
  'accept-language': optional(Str(255, { description: 'Accepted; the answer is the same in every language' })),
  api_key: ApiKeyHeader,
});

export const DeleteQuery = Type.Object({
  product_list_id: Int({ minimum: 1 }),
  is_archived: optional(
    Type.Boolean({ description: 'true archives the list (out of the listing, lines kept) instead of deleting' }),
  ),
  is_delete_header: optional(
    Type.Boolean({ description: 'true removes the list with its lines; otherwise only its lines are removed' }),
  ),
});
export type DeleteQuery = Static<typeof DeleteQuery>;

export const ListsQuery = Type.Object({
  last_updated_on: optional(DateTime({ description: 'Lists modified at or after this' })),
  name: optional(Str(MAX_LIST_NAME, { description: 'Case-insensitive part of the name' })),
  product_list_id: optional(Int({ minimum: 1 })),
  show_lines: optional(Type.Boolean({ description: 'true includes every line of each list' })),
  type: optional(Int({ minimum: 0, maximum: MAX_CONFIG_NUMBER })),
  is_archived: optional(
    Type.Boolean({ description: 'Added: true lists the archived lists (only those); default the live ones' }),
  ),
  ...PageQueryProperties,
});
export type ListsQuery = Static<typeof ListsQuery>;

export const ProductListLine = Type.Object({
  quantity: Type.Number(),
  barcode: optional(Type.String({ description: 'The product master’s barcode' })),
  category_code: optional(Type.String()),
  colli: optional(Type.Number({ description: 'The product’s carrier_item_quantity' })),
  is_decimal: optional(Type.Boolean({ description: 'The product’s allow_decimal' })),
  parent_category_code: optional(Type.String()),
  product_name: optional(Type.String()),
  product_number: optional(Type.String()),
  stock_pool: optional(Type.String()),
  store_walking_order: optional(
    Type.Integer({ description: 'location_order of the product’s first location in the store; 0 when it has none' }),
  ),
});
export type ProductListLine = Static<typeof ProductListLine>;

export const ProductList = Type.Object({
  id: Type.Integer(),
  line_count: Type.Integer(),
  type: Type.Integer(),
  app_username: optional(Type.String()),
  free_fields: optional(Type.Array(Type.Object({ key: Type.String(), value: Type.String() }))),
  lines: optional(Type.Array(ProductListLine)),
  modified_on: optional(Type.String()),
  name: optional(Type.String()),
  type_description: optional(
    Type.String({ description: 'The configured name of the type; absent for a type not configured' }),
  ),
  is_archived: Type.Boolean({ description: 'Added: true while the list is archived' }),
  module_id: optional(Type.Integer({ description: 'Added: the module the list was created for' })),
  created_on: optional(Type.String({ description: 'Added' })),
});
export type ProductList = Static<typeof ProductList>;

export const ListsPage = PagedResponse(ProductList);
