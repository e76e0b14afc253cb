import { errorCodes, type ErrorCode } from './error-codes.js';
import type { ResponseMeta } from '../service/response-meta.js';

/** One failing field of a validation error. */
export interface ErrorDetail {
  /** Where the value sits, dot-separated (`categoryId`, `limit`); empty for the value as a whole. */
  path: string;
  message: string;
}

/** The Error body of SPEC section 2. */
export interface ErrorBody {
  code: ErrorCode;
  message: string;
  status: number;
  details?: ErrorDetail[];
}

/**
 * The one error class of the service. Its code decides the HTTP status and the tRPC code.
 * @example throw new PetStoreError('not_found', 'No pet with id 7.')
 */
export class PetStoreError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: ErrorDetail[] | undefined;
  /** What the response carries besides the body: rate-limit state, Retry-After, deprecation. */
  meta: ResponseMeta;

  constructor(code: ErrorCode, message?: string, options?: { details?: ErrorDetail[]; meta?: ResponseMeta; cause?: unknown }) {
    super(message ?? errorCodes[code].message, { cause: options?.cause });
    this.name = 'PetStoreError';
    this.code = code;
    this.status = errorCodes[code].status;
    this.details = options?.details;
    this.meta = options?.meta ?? {};
  }

  /** The Error body: exactly `code`, `message`, `status`, and `details` for validation failures. */
  toBody(): ErrorBody {
    const body: ErrorBody = { code: this.code, message: this.message, status: this.status };
    if (this.details) body.details = this.details;
    return body;
  }
}

/**
 * Turns anything thrown into a PetStoreError; anything unexpected becomes `internal_error`, revealing nothing.
 * @example const error = toPetStoreError(caught); res.statusCode = error.status
 */
export function toPetStoreError(error: unknown): PetStoreError {
  return error instanceof PetStoreError ? error : new PetStoreError('internal_error', undefined, { cause: error });
}
