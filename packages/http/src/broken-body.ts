import { PetStoreError } from '@petstore/core';

/**
 * The failure of a request body that broke off before its end (the connection reset or closed, a chunk size the
 * parser refused): the client's fault, found where it happened, on the request's own stream. A 400
 * `invalid_request` (the client errors of the usage ledger), never a network error that could pass for the
 * database's (`ECONNRESET`), so it is no outage, no 503 and no server error. The stream's own error is its cause.
 * @example req.on('error', (error) => reject(bodyBrokenOff(error)))
 */
export function bodyBrokenOff(cause?: unknown): PetStoreError {
  return new PetStoreError('invalid_request', 'The request body broke off before its end.', { cause });
}
