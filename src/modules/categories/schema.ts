import { Type, type Static } from '@sinclair/typebox';
import { BulkArray, FlushQuery, Int, PageQueryProperties, PagedResponse, Str, TextId } from '../../shared/schemas.js';

/** Parent code of a root category (interface §4.10). */
export const ROOT_CATEGORY_CODE = '0';

/** Offsets are days; ten years either way is more than any retail calendar needs. */
const MAX_OFFSET_DAYS = 3650;

/** One category as the ERP sends it (interface §4.10). */
export const CategoryInput = Type.Object({
  category_code: TextId(64, {
    minLength: 1,
    description:
      'Natural key of the upsert. Optional in the interface, required here: a category without a code cannot be matched again. "0" is reserved for the root.',
  }),
  category_name: Str(255, { minLength: 1 }),
  is_adjust_min_max: Type.Boolean({ description: 'Automatic min/max adjustment for products in the category' }),
  is_markdown: Type.Boolean(),
  friendly_category_name: Type.Optional(Str(255)),
  markdown_percentages: Type.Optional(
    Str(255, {
      description:
        'Comma-separated percentages, each a number from 0 to 100 with at most 2 decimals; read back exactly as sent',
    }),
  ),
  parent_category_code: Type.Optional(
    TextId(64, {
      minLength: 1,
      default: ROOT_CATEGORY_CODE,
      description:
        '"0" (the default) = root. Otherwise a category in the same request or a live stored one (with flush=true: in the same request)',
    }),
  ),
  expiration_offset: Type.Optional(Int({ minimum: -MAX_OFFSET_DAYS, maximum: MAX_OFFSET_DAYS, description: 'Days' })),
  receipt_offset: Type.Optional(Int({ minimum: -MAX_OFFSET_DAYS, maximum: MAX_OFFSET_DAYS, description: 'Days' })),
});
export type CategoryInput = Static<typeof CategoryInput>;

export const CategoriesBody = Type.Object({ categories: BulkArray(CategoryInput) });
export type CategoriesBody = Static<typeof CategoriesBody>;
export const CategoriesImportQuery = FlushQuery;

/** One category as read (interface §2.10 "not shown", PRODUCT §6 Category read). */
export const Category = Type.Object({
  id: Type.Integer(),
  category_code: Type.String(),
  category_name: Type.String(),
  friendly_category_name: Type.Optional(Type.String()),
  parent_category_code: Type.String({ description: '"0" for a root category' }),
  is_adjust_min_max: Type.Boolean(),
  is_markdown: Type.Boolean(),
  markdown_percentages: Type.Optional(Type.String()),
  expiration_offset: Type.Optional(Type.Integer()),
  receipt_offset: Type.Optional(Type.Integer()),
  created_on: Type.String(),
  updated_on: Type.String(),
});
export type Category = Static<typeof Category>;

export const CategoriesQuery = Type.Object({
  module_id: Type.Optional(
    Int({ description: 'Accepted and echoed in list_filters; it selects nothing (no modules exist in this service)' }),
  ),
  parent_category_code: Type.Optional(Str(64, { description: 'Exact parent code; "0" lists the root categories' })),
  search_text: Type.Optional(Str(200, { description: 'Case-insensitive literal substring of category_name' })),
  ...PageQueryProperties,
});
export type CategoriesQuery = Static<typeof CategoriesQuery>;

export const CategoriesPage = PagedResponse(Category);
