import { blindHides } from '../../domain/counting.js';
import { formatOptionalDateTime, formatDateTime } from '../../domain/datetime.js';
import { fromMoney, fromQuantity, toMoney, toQuantity } from '../../domain/decimal.js';
import type { Principal } from '../../shared/access.js';
import type { AssignmentRow, NamedLineRow } from './repository.js';
import type { Assignment, AssignmentBody, Line, Scope } from './schema.js';

/** Row ↔ API shapes of PRODUCT §10: quantities in thousandths, money in ten-thousandths, moments in ms. */

const orNull = <T, R>(value: T | null, map: (v: T) => R): R | null => (value === null ? null : map(value));
const nullable = <T>(value: T | undefined): T | null => (value === undefined ? null : value);

/** Whether the principal reads this assignment blind (PRODUCT §10 Blind: store tokens, until submitted). */
export const readsBlind = (row: AssignmentRow, principal: Principal): boolean =>
  blindHides(row.blind === 1, row.status, principal.role === 'store');

export function toAssignment(row: AssignmentRow, principal: Principal): Assignment {
  const hide = readsBlind(row, principal);
  return {
    counting_assignment_id: row.id,
    counting_assignment_code: row.counting_assignment_code,
    description: row.description,
    store_number: row.store_number,
    scope: JSON.parse(row.scope) as Scope,
    blind: row.blind === 1,
    kind: row.kind,
    zero_reason_code: row.zero_reason_code,
    max_variance_quantity: orNull(row.max_variance_quantity, fromQuantity),
    max_variance_value: orNull(row.max_variance_value, fromMoney),
    max_variance_percent: orNull(row.max_variance_percent, fromQuantity),
    due_datetime: formatOptionalDateTime(row.due_at) ?? null,
    allow_extra_lines: row.allow_extra_lines === 1,
    status: row.status,
    progress: {
      lines_total: row.lines_total,
      lines_counted: row.lines_counted,
      lines_remaining: row.lines_total - row.lines_counted,
      lines_pending: row.lines_pending,
      ...(hide
        ? {}
        : { variance_quantity: fromQuantity(row.variance_quantity), variance_value: fromMoney(row.variance_value) }),
    },
    started_datetime: formatOptionalDateTime(row.started_at) ?? null,
    submitted_datetime: formatOptionalDateTime(row.submitted_at) ?? null,
    closed_datetime: formatOptionalDateTime(row.closed_at) ?? null,
    cancelled_datetime: formatOptionalDateTime(row.cancelled_at) ?? null,
    created_on: formatDateTime(row.created_on),
    updated_on: formatDateTime(row.updated_on),
    created_by: row.created_by,
    updated_by: row.modified_by,
  };
}

export function toLine(row: NamedLineRow, hide: boolean): Line {
  const variance = row.counted === null ? null : fromQuantity(row.counted - row.expected);
  return {
    line_id: row.id,
    product_number: row.product_number,
    location_code: row.location_id === 0 ? null : row.location_code,
    pool: row.pool,
    ...(hide ? {} : { expected_quantity: fromQuantity(row.expected) }),
    counted_quantity: orNull(row.counted, fromQuantity),
    ...(hide ? {} : { variance_quantity: variance }),
    counted_at: formatOptionalDateTime(row.counted_at) ?? null,
    app_user_name: row.app_user_name,
    status: row.status,
    is_extra: row.is_extra === 1,
    log_entry_id: row.log_id,
  };
}

/** The scope as stored: the fields given, nothing else. */
export function storedScope(scope: Scope): Scope {
  const stored: Scope = {};
  if (scope.counting_assignment_code !== undefined) stored.counting_assignment_code = scope.counting_assignment_code;
  if (scope.product_numbers !== undefined) stored.product_numbers = [...new Set(scope.product_numbers)];
  if (scope.category_codes !== undefined) stored.category_codes = [...new Set(scope.category_codes)];
  if (scope.location_codes !== undefined) stored.location_codes = [...new Set(scope.location_codes)];
  if (scope.whole_store === true) stored.whole_store = true;
  return stored;
}

/** The assignment's own columns from a create request (PRODUCT §10). */
export function assignmentColumns(body: AssignmentBody) {
  return {
    counting_assignment_code: nullable(body.counting_assignment_code),
    description: nullable(body.description),
    scope: JSON.stringify(storedScope(body.scope)),
    blind: (body.blind === true ? 1 : 0) as 0 | 1,
    kind: body.kind ?? 'spot',
    zero_reason_code: nullable(body.zero_reason_code),
    max_variance_quantity: orNull(nullable(body.max_variance_quantity), toQuantity),
    max_variance_value: orNull(nullable(body.max_variance_value), toMoney),
    max_variance_percent: orNull(nullable(body.max_variance_percent), toQuantity),
    allow_extra_lines: (body.allow_extra_lines === true ? 1 : 0) as 0 | 1,
  };
}
