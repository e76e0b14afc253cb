import { RateLimiterMemory } from 'rate-limiter-flexible';
import { COUNTER_CEILING, countersOn, type Counters } from './counters.js';

/** Counters in this process's memory, one of which can be dropped before it expires. */
export interface MemoryCounters extends Counters {
  /** Deletes the entry under `key` now. */
  forget(key: string): Promise<void>;
}

/**
 * Counters in this process's memory; entries drop on their own when they expire.
 * @example const counters = createMemoryCounters()
 */
export function createMemoryCounters(): MemoryCounters {
  const limiter = new RateLimiterMemory({ keyPrefix: '', points: COUNTER_CEILING, duration: 60 });
  return { ...countersOn(limiter, { clearExpired: async () => 0, close: async () => {} }), forget: (key) => limiter.delete(key).then(() => undefined) };
}
