import type { ErrorCode as ServiceErrorCode } from '@petstore/core';

/** The codes the client itself gives, for an answer it cannot use or a listing it would follow for ever. */
export type ClientErrorCode = 'unexpected_response' | 'response_too_large' | 'repeated_cursor';

/**
 * Every `code` a {@link PetStoreApiError} can carry: the service's error codes (its one table, `errorCodes` of the
 * core) and the client's own. The published types list the service's codes one by one (scripts/build.mjs writes
 * them from the table), so a `switch` on `error.code` is checked. A code a newer service adds reaches an older
 * client as it came, outside this union: keep a `default` branch.
 */
export type ErrorCode = ServiceErrorCode | ClientErrorCode;
