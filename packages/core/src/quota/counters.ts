import { RateLimiterRes, type RateLimiterAbstract, type RateLimiterStoreAbstract } from 'rate-limiter-flexible';
import { DependencyUnavailableError } from '../errors/dependency-unavailable.js';
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

/** A store failure as a 503; for a store other than the database, its cause names that store. */
function failureOf(dependency: string | undefined) {
  return (error: unknown): never => {
    const cause = dependency ? new DependencyUnavailableError(dependency, error) : error;
    throw new PetStoreError('unavailable', undefined, { cause });
  };
}

/**
 * Counters on a rate-limiter-flexible limiter whose `points` is {@link COUNTER_CEILING}; `dependency` names a store
 * other than the database (`redis`) in the 503s its failures become.
 */
export function countersOn(
  limiter: RateLimiterAbstract | RateLimiterStoreAbstract,
  upkeep: Pick<Counters, 'clearExpired' | 'close'>,
  dependency?: string,
): Counters {
  const storeFailure = failureOf(dependency);
  // consume() settles with a RateLimiterRes either way (rejecting when over the limiter's points);
  // any other rejection is the store failing, which must never let a request through.
  const countOf = (outcome: unknown): number =>
    outcome instanceof RateLimiterRes ? outcome.consumedPoints : storeFailure(outcome);
  return {
    increment: (key, seconds, amount = 1) =>
      limiter.consume(key, amount, { customDuration: seconds }).then(countOf, countOf),
    read: (key) => limiter.get(key).then((res) => (res ? res.consumedPoints : undefined), storeFailure),
    write: (key, value, seconds) => limiter.set(key, value, seconds).then(() => undefined, storeFailure),
    ...upkeep,
  };
}
