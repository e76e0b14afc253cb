import { RateLimiterMemory } from 'rate-limiter-flexible';
import { COUNTER_CEILING, countersOn, type Counters } from './counters.js';

/**
 * Counters in this process's memory; entries drop on their own when they expire.
 * @example const counters = createMemoryCounters()
 */
export function createMemoryCounters(): Counters {
  const limiter = new RateLimiterMemory({ keyPrefix: '', points: COUNTER_CEILING, duration: 60 });
  return countersOn(limiter, { clearExpired: async () => 0, close: async () => {} });
}
