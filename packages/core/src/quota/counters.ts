import { RateLimiterRes, type RateLimiterAbstract, type RateLimiterStoreAbstract } from 'rate-limiter-flexible';
import { DependencyUnavailableError } from '../errors/dependency-unavailable.js';
import { isDatabaseUnavailable } from '../errors/is-database-unavailable.js';
import { PetStoreError } from '../errors/pet-store-error.js';

/** A counter's key and how long a new entry of it lives, in seconds. */
export interface CounterKey {
  key: string;
  seconds: number;
}

/** The counts of a key's minute and day windows after {@link Counters.incrementWindows}. */
export interface WindowCounts {
  minute: number;
  day: number;
}

/** Atomic counters with expiry; every instance on the same store shares them. */
export interface Counters {
  /** Adds `amount` (default 1) under `key` and answers the new count; a new entry lives `seconds` (store time). */
  increment(key: string, seconds: number, amount?: number): Promise<number>;
  /**
   * Counts `amount` requests in the `minute` window and, of those, the ones that fit within `perMinute` in the `day`
   * window (a request refused for the minute uses no daily quota); answers both new counts, in one round trip where
   * the store allows.
   */
  incrementWindows(minute: CounterKey, day: CounterKey, amount: number, perMinute: number): Promise<WindowCounts>;
  /** The value under `key`, if any. */
  read(key: string): Promise<number | undefined>;
  /**
   * The entries named `k:…:<address>` (the keys known at `address`), at most `max` (undefined when there are more):
   * one round trip for them all. Only where an index serves it (the PostgreSQL store); absent elsewhere.
   */
  readKnownAt?(address: string, max: number): Promise<Map<string, number> | undefined>;
  /** Replaces the value under `key`; the entry lives `seconds` from now. */
  write(key: string, value: number, seconds: number): Promise<void>;
  /** Deletes expired entries now; answers how many went. */
  clearExpired(): Promise<number>;
  /** Stops any upkeep timer. */
  close(): Promise<void>;
}

/** The limiter's own limit, never reached: the quota compares counts with each key's limits itself. */
export const COUNTER_CEILING = 2_147_483_647;

/**
 * A store failure as a PetStoreError. On the database: 503 when it cannot be reached, 500 for any other error (a
 * fault of ours, such as a statement it refuses). On another store (`redis`): a 503 whose cause names that store.
 */
export function failureOf(dependency: string | undefined) {
  return (error: unknown): never => {
    if (dependency) throw new PetStoreError('unavailable', undefined, { cause: new DependencyUnavailableError(dependency, error) });
    throw new PetStoreError(isDatabaseUnavailable(error) ? 'unavailable' : 'internal_error', undefined, { cause: error });
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
  const increment = (key: string, seconds: number, amount = 1) =>
    limiter.consume(key, amount, { customDuration: seconds }).then(countOf, countOf);
  const read = (key: string) => limiter.get(key).then((res) => (res ? res.consumedPoints : undefined), storeFailure);
  return {
    increment,
    read,
    // Two steps; the stores shared over the network replace this with one (postgres-counters.ts, redis-counters.ts).
    async incrementWindows(minute, day, amount, perMinute) {
      const minuteCount = await increment(minute.key, minute.seconds, amount);
      const fit = fittingInMinute(minuteCount, amount, perMinute);
      const dayCount = fit > 0 ? await increment(day.key, day.seconds, fit) : ((await read(day.key)) ?? 0);
      return { minute: minuteCount, day: dayCount };
    },
    write: (key, value, seconds) => limiter.set(key, value, seconds).then(() => undefined, storeFailure),
    ...upkeep,
  };
}

/** How many of the last `amount` requests of a minute window now at `count` were within `perMinute`. */
export function fittingInMinute(count: number, amount: number, perMinute: number): number {
  return Math.min(amount, Math.max(0, perMinute - (count - amount)));
}
