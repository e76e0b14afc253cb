import { PetStoreError } from '../errors/pet-store-error.js';
import type { RateLimitWindow } from '../service/response-meta.js';
import { fromStoredSeconds, storedSecondsBefore } from './stored-time.js';
import { retryAfterSeconds } from './windows.js';

/** The stored value of a ban of `seconds` starting at `now`; it ends on a whole second, at most `seconds` later. */
export function banValue(now: number, seconds: number): number {
  return storedSecondsBefore(now) + seconds;
}

/** When the ban stored as `value` ends, in epoch milliseconds. */
export function banEnd(value: number): number {
  return fromStoredSeconds(value);
}

/**
 * The 429 `api_key_banned` of a key banned until `bannedUntil` (ms since the epoch), with its windows.
 * @example throw banRefusal(windows, bannedUntil, clock.now())
 */
export function banRefusal(windows: RateLimitWindow[], bannedUntil: number, now: number): PetStoreError {
  const until = new Date(bannedUntil).toISOString();
  return new PetStoreError('api_key_banned', `The API key is banned until ${until} after repeated requests over its limit.`, {
    meta: { rateLimit: windows, retryAfter: retryAfterSeconds(bannedUntil - now) },
  });
}
