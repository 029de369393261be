import type { FieldError } from './validation.js';

/** Machine codes of the error envelope and their HTTP status (PRODUCT §3). */
export const ERROR_STATUS = {
  VALIDATION_FAILED: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  REQUEST_TIMEOUT: 408,
  CONFLICT: 409,
  /** A change-feed cursor older than the events kept (PRODUCT §9 retention). */
  GONE: 410,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  UNPROCESSABLE: 422,
  RATE_LIMITED: 429,
  /** Request line and headers over Node's 16 KiB limit (docs/decisions.md). */
  HEADERS_TOO_LARGE: 431,
  INTERNAL: 500,
  UNAVAILABLE: 503,
  /** No space left for the write (full disk); nothing was written (docs/decisions.md "Database faults"). */
  INSUFFICIENT_STORAGE: 507,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

const CODE_BY_STATUS = new Map<number, ErrorCode>(
  Object.entries(ERROR_STATUS).map(([code, status]) => [status, code as ErrorCode]),
);

/** The envelope code of a 4xx/5xx status; a 4xx without its own code is a validation failure. */
export const codeForStatus = (status: number): ErrorCode =>
  CODE_BY_STATUS.get(status) ?? (status >= 500 ? 'INTERNAL' : 'VALIDATION_FAILED');
export const hasOwnCode = (status: number): boolean => CODE_BY_STATUS.has(status);

/** A failure the client should see as it is: status, code, sentence and field paths. */
export class AppError extends Error {
  readonly statusCode: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly errors: FieldError[] = [],
  ) {
    super(message);
    this.statusCode = ERROR_STATUS[code];
  }
}

export const validationFailed = (message: string, errors: FieldError[] = []) =>
  new AppError('VALIDATION_FAILED', message, errors);
export const notFound = (message: string) => new AppError('NOT_FOUND', message);
export const conflict = (message: string, errors: FieldError[] = []) => new AppError('CONFLICT', message, errors);
export const unprocessable = (message: string, errors: FieldError[] = []) =>
  new AppError('UNPROCESSABLE', message, errors);
export const forbidden = (message: string, errors: FieldError[] = []) => new AppError('FORBIDDEN', message, errors);
export const unauthorized = (message: string) => new AppError('UNAUTHORIZED', message);

/** At most this many field errors go into one envelope; the message says how many more. */
export const MAX_LISTED_ERRORS = 200;

export function errorEnvelope(code: ErrorCode, message: string, errors: FieldError[] = []) {
  const listed = errors.slice(0, MAX_LISTED_ERRORS);
  const more = errors.length - listed.length;
  return {
    success: false as const,
    message: more > 0 ? `${message} (${more} more errors not listed)` : message,
    code,
    errors: listed,
  };
}
