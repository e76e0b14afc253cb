import type { QuotaSubject } from '../auth/principal.js';
import type { RateLimitWindow } from './response-meta.js';

/**
 * The quota step of every operation. Returns the windows that counted the request, the binding one first;
 * throws a PetStoreError (`rate_limited`, `api_key_banned`, `unavailable`) when the request may not proceed.
 */
export interface Quota {
  /**
   * Counts a request of an API key or a principal against its limits; `requests` counts that many at once (the calls
   * of a batch refused together), refused when the last of them does not fit. 0 counts nothing and is refused
   * while a window is over its limit (the calls of a batch refused after its first 429, which a ban does not count).
   */
  consumeKey(key: QuotaSubject, requests?: number): Promise<RateLimitWindow[]>;
  /** Counts a request without a valid key against its address (`requests` at once, as `consumeKey`). */
  consumeAddress(address: string, requests?: number): Promise<RateLimitWindow[]>;
  /** Throws the address's 429, as `consumeAddress` would, while the address is over its limit; counts nothing. */
  checkAddress(address: string): Promise<void>;
  /**
   * Whether the key of `token` has succeeded from `address` in the last 24 hours, on any instance sharing the quota's
   * store: such a key is served while the address is over its limit (DECISIONS "Gaps in limits"). Judged from the
   * token alone, without the key store, so a refused address costs no key look-up, and a right guess takes exactly
   * the time of a wrong one.
   */
  knowsToken(token: string, address: string): Promise<boolean>;
  /** Remembers that a request with `token` (a valid key) from `address` succeeded; written behind, never waits, never throws. */
  tokenSucceeded(token: string, address: string): void;
  /**
   * The windows of a key or principal as they stand, the binding one first, counting nothing; with the end of its ban
   * (ms since the epoch) while it is banned.
   */
  standing(key: QuotaSubject): Promise<QuotaStanding>;
  /**
   * Counts a call of an operation that has a per-minute limit of its own (`getUsage`, DECISIONS "Usage") instead of
   * the plan's windows, which it leaves untouched; throws `rate_limited` with that window past `perMinute`, and bans
   * the key (`api_key_banned`) past the ban threshold as `consumeKey` does.
   */
  consumeOwn(key: QuotaSubject, operationId: string, perMinute: number): Promise<RateLimitWindow[]>;
}

/** What {@link Quota.standing} answers. */
export interface QuotaStanding {
  windows: RateLimitWindow[];
  bannedUntil?: number;
}

/** A quota that counts nothing: for embedding without limits. */
export const unlimitedQuota: Quota = Object.freeze({
  consumeKey: async () => [],
  consumeAddress: async () => [],
  checkAddress: async () => {},
  knowsToken: async () => true,
  tokenSucceeded: () => {},
  standing: async () => ({ windows: [] }),
  consumeOwn: async () => [],
});
