import { isWellFormedApiKey } from '@petstore/core';

/** The address of requests whose client is unknown and whose token could be a key: the guesses, counted together. */
export const UNKNOWN_ADDRESS = 'unknown';
/** The address of requests whose client is unknown and that carry no token that could be a key. */
export const UNKNOWN_ADDRESS_WITHOUT_KEY = 'unknown, without a key';

/**
 * The address a request is counted under when its client's cannot be known (a Fetch runtime given no `address`).
 * Requests that carry no key, or a token no key could be, cannot be guesses, so they are counted apart from those
 * that carry a token shaped like a key: anonymous traffic (probes, pages, `Bearer undefined`) then never makes a
 * valid key look like a wrong one, while guesses still do once they pass the per-address limit (a right guess
 * must look like a wrong one), and a key that has succeeded in the last 24 hours keeps working through either.
 * @example unknownAddress(undefined) // 'unknown, without a key'
 */
export function unknownAddress(token: string | undefined): string {
  return token !== undefined && isWellFormedApiKey(token) ? UNKNOWN_ADDRESS : UNKNOWN_ADDRESS_WITHOUT_KEY;
}
