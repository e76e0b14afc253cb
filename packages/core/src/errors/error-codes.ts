/** tRPC error codes, spelled here so the core can map to them without importing tRPC. */
export type TrpcCode =
  | 'BAD_REQUEST'
  | 'PARSE_ERROR'
  | 'UNAUTHORIZED'
  | 'NOT_FOUND'
  | 'METHOD_NOT_SUPPORTED'
  | 'CONFLICT'
  | 'PRECONDITION_FAILED'
  | 'TIMEOUT'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'TOO_MANY_REQUESTS'
  | 'INTERNAL_SERVER_ERROR'
  | 'SERVICE_UNAVAILABLE';

interface ErrorCodeInfo {
  readonly status: number;
  readonly trpc: TrpcCode;
  readonly message: string;
}

/**
 * Every error the service can answer with: the one table that maps a code to its HTTP status and tRPC code.
 * @example errorCodes.not_found.status // 404
 */
export const errorCodes = {
  invalid_request: { status: 400, trpc: 'BAD_REQUEST', message: 'The request is invalid.' },
  malformed_json: { status: 400, trpc: 'PARSE_ERROR', message: 'The request body is not valid JSON.' },
  missing_api_key: {
    status: 401,
    trpc: 'UNAUTHORIZED',
    message: 'An API key is required: send it as "Authorization: Bearer <API_KEY>".',
  },
  invalid_api_key: { status: 401, trpc: 'UNAUTHORIZED', message: 'The API key is unknown, revoked or malformed.' },
  not_found: { status: 404, trpc: 'NOT_FOUND', message: 'The requested resource could not be found.' },
  method_not_allowed: {
    status: 405,
    trpc: 'METHOD_NOT_SUPPORTED',
    message: 'The method is not allowed on this resource.',
  },
  idempotency_key_reused: {
    status: 409,
    trpc: 'CONFLICT',
    message: 'This Idempotency-Key was already used with another request.',
  },
  pet_not_available: { status: 409, trpc: 'CONFLICT', message: 'The animal is not available: it is pending or sold.' },
  order_not_open: { status: 409, trpc: 'CONFLICT', message: 'The order is no longer placed: it was completed or cancelled.' },
  pet_has_open_order: {
    status: 409,
    trpc: 'CONFLICT',
    message: 'The animal has an open order: its status changes only through the order.',
  },
  request_timeout: {
    status: 408,
    trpc: 'TIMEOUT',
    message: 'The request body did not arrive within 10 seconds; the connection is closed.',
  },
  gone: { status: 410, trpc: 'NOT_FOUND', message: 'This operation has been removed.' },
  precondition_failed: {
    status: 412,
    trpc: 'PRECONDITION_FAILED',
    message: 'The animal has changed since the version named by If-Match; nothing was changed.',
  },
  payload_too_large: { status: 413, trpc: 'PAYLOAD_TOO_LARGE', message: 'The request body is larger than 64 KiB.' },
  unsupported_media_type: {
    status: 415,
    trpc: 'UNSUPPORTED_MEDIA_TYPE',
    message: 'The request body must be application/json.',
  },
  // Answered by the edge before any codec, so the tRPC code is never used; BAD_REQUEST is tRPC's nearest.
  misdirected_request: {
    status: 421,
    trpc: 'BAD_REQUEST',
    message: 'This host is not served here: the request was sent to a domain this service does not answer for.',
  },
  rate_limited: { status: 429, trpc: 'TOO_MANY_REQUESTS', message: 'Rate limit exceeded.' },
  api_key_banned: {
    status: 429,
    trpc: 'TOO_MANY_REQUESTS',
    message: 'The API key is temporarily banned after repeated requests over its limit.',
  },
  internal_error: { status: 500, trpc: 'INTERNAL_SERVER_ERROR', message: 'An internal error occurred.' },
  unavailable: { status: 503, trpc: 'SERVICE_UNAVAILABLE', message: 'The service is temporarily unavailable.' },
} as const satisfies Record<string, ErrorCodeInfo>;

/** A machine-readable error code of the Error body. */
export type ErrorCode = keyof typeof errorCodes;
