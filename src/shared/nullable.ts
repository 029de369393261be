/**
 * Columns hold null where JSON leaves a field out: optional input fields become null on
 * the way in, and null columns become absent fields on the way out (response schemas
 * then omit them).
 */
export const orNull = <T>(value: T | undefined): T | null => (value === undefined ? null : value);
export const orUndefined = <T>(value: T | null): T | undefined => (value === null ? undefined : value);
