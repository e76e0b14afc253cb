import type { QuotaSubject } from '../auth/principal.js';
import type { RateLimitWindow } from './response-meta.js';

/**
 * The quota step of every operation. Returns the windows that counted the request, the binding one first;
 * throws a PetStoreError (`rate_limited`, `api_key_banned`, `unavailable`) when the request may not proceed.
 */
export interface Quota {
  /** Counts a request of an API key or a principal against its limits. */
  consumeKey(key: QuotaSubject): Promise<RateLimitWindow[]>;
  consumeAddress(address: string): Promise<RateLimitWindow[]>;
  /** Throws the address's 429, as `consumeAddress` would, while the address is over its limit; counts nothing. */
  checkAddress(address: string): Promise<void>;
}

/** A quota that counts nothing: for embedding without limits. */
export const unlimitedQuota: Quota = Object.freeze({
  consumeKey: async () => [],
  consumeAddress: async () => [],
  checkAddress: async () => {},
});
