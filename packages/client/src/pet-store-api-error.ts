import type { ErrorCode } from './error-code.js';

/** One failing field of a validation error (`details` of a 400 `invalid_request`). */
export interface ErrorDetail {
  path: string;
  message: string;
}

/** What a {@link PetStoreApiError} carries. */
export interface PetStoreApiErrorFields {
  /**
   * The Error body's `code` (`invalid_request`, `rate_limited`, …), or the client's own (`unexpected_response` for
   * an answer without one); see {@link ErrorCode}.
   */
  code: ErrorCode;
  /** The HTTP status. */
  status: number;
  message: string;
  details?: ErrorDetail[] | undefined;
  /** Seconds the service asked to wait (`Retry-After`), on 429 and 503. */
  retryAfter?: number | undefined;
  /** The answer's `X-Request-Id`, to quote when asking about it; absent when the client refused without sending. */
  requestId?: string | undefined;
}

/**
 * An answer of the service that is not a success, or a call the client refused to send because the key is over its
 * limit for longer than the caller allows (then `requestId` is absent).
 * @example if (error instanceof PetStoreApiError && error.code === 'not_found') return undefined;
 */
export class PetStoreApiError extends Error implements PetStoreApiErrorFields {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: ErrorDetail[] | undefined;
  readonly retryAfter: number | undefined;
  readonly requestId: string | undefined;

  constructor(fields: PetStoreApiErrorFields, options?: { cause?: unknown }) {
    super(fields.message, options);
    this.name = 'PetStoreApiError';
    this.code = fields.code;
    this.status = fields.status;
    this.details = fields.details;
    this.retryAfter = fields.retryAfter;
    this.requestId = fields.requestId;
  }
}

/**
 * A 412 `precondition_failed`: the animal is at another version than `ifMatch` named, and nothing changed. `etag` is
 * its current version's, to read it again or to retry the change on it.
 * @example catch (error) { if (error instanceof PreconditionFailedError) etag = error.etag }
 */
export class PreconditionFailedError extends PetStoreApiError {
  /** The current `ETag` of the animal. */
  readonly etag: string | undefined;

  constructor(fields: PetStoreApiErrorFields & { etag?: string | undefined }, options?: { cause?: unknown }) {
    super(fields, options);
    this.name = 'PreconditionFailedError';
    this.etag = fields.etag;
  }
}

const isErrorBody = (body: unknown): body is { code: string; message: string; details?: ErrorDetail[] } =>
  typeof body === 'object' &&
  body !== null &&
  typeof (body as { code?: unknown }).code === 'string' &&
  typeof (body as { message?: unknown }).message === 'string';

/**
 * Whole seconds of a `Retry-After` header (delta-seconds, or an HTTP date), or undefined.
 * @example retryAfterOf(new Headers({ 'retry-after': '1' }), Date.now()) // 1
 */
export function retryAfterOf(headers: Headers, now: number): number | undefined {
  const value = headers.get('retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}

/**
 * The error for an answer that is not a success: the Error body's fields, or `unexpected_response` without one.
 * @example throw errorFromResponse(response, await response.text(), clock.now())
 */
export function errorFromResponse(response: Response, text: string, now: number): PetStoreApiError {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const common = {
    status: response.status,
    retryAfter: retryAfterOf(response.headers, now),
    requestId: response.headers.get('x-request-id') ?? undefined,
  };
  if (isErrorBody(body) && response.status === 412) {
    return new PreconditionFailedError({ ...common, code: body.code as ErrorCode, message: body.message, etag: response.headers.get('etag') ?? undefined });
  }
  return isErrorBody(body)
    ? new PetStoreApiError({ ...common, code: body.code as ErrorCode, message: body.message, details: body.details })
    : new PetStoreApiError({
        ...common,
        code: 'unexpected_response',
        message: `The service answered ${response.status}${response.statusText ? ` ${response.statusText}` : ''} without an Error body.`,
      });
}
