import { RateLimiterRes, type RateLimiterAbstract, type RateLimiterStoreAbstract } from 'rate-limiter-flexible';
import { PetStoreError } from '../errors/pet-store-error.js';

/** Atomic counters with expiry; every instance on the same store shares them. */
export interface Counters {
  /** Adds `amount` (default 1) under `key` and answers the new count; a new entry lives `seconds` (store time). */
  increment(key: string, seconds: number, amount?: number): Promise<number>;
  /** The value under `key`, if any. */
  read(key: string): Promise<number | undefined>;
  /** Replaces the value under `key`; the entry lives `seconds` from now. */
  write(key: string, value: number, seconds: number): Promise<void>;
  /** Deletes expired entries now; answers how many went. */
  clearExpired(): Promise<number>;
  /** Stops any upkeep timer. */
  close(): Promise<void>;
}

/** The limiter's own limit, never reached: the quota compares counts with each key's limits itself. */
export const COUNTER_CEILING = 2_147_483_647;

function storeFailure(error: unknown): never {
  throw new PetStoreError('unavailable', undefined, { cause: error });
}

// consume() settles with a RateLimiterRes either way (rejecting when over the limiter's points);
// any other rejection is the store failing, which must never let a request through.
function countOf(outcome: unknown): number {
  if (outcome instanceof RateLimiterRes) return outcome.consumedPoints;
  return storeFailure(outcome);
}

/** Counters on a rate-limiter-flexible limiter whose `points` is {@link COUNTER_CEILING}. */
export function countersOn(
  limiter: RateLimiterAbstract | RateLimiterStoreAbstract,
  upkeep: Pick<Counters, 'clearExpired' | 'close'>,
): Counters {
  return {
    increment: (key, seconds, amount = 1) =>
      limiter.consume(key, amount, { customDuration: seconds }).then(countOf, countOf),
    read: (key) => limiter.get(key).then((res) => (res ? res.consumedPoints : undefined), storeFailure),
    write: (key, value, seconds) => limiter.set(key, value, seconds).then(() => undefined, storeFailure),
    ...upkeep,
  };
}
