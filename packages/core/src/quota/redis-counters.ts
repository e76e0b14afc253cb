import { RateLimiterRedis } from 'rate-limiter-flexible';
import { COUNTER_CEILING, countersOn, type Counters } from './counters.js';

/**
 * The part of an ioredis client the quota uses: pass the client itself. Core loads no Redis driver; the caller
 * makes the client fail fast while Redis is away (no offline queue, no retried commands), as `openRedis` in
 * `@petstore/embed` does.
 * @example createQuota({ store: 'redis', client: new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 0 }) })
 */
export interface RedisLike {
  /** ioredis's connection state; counters are refused at once unless it is `ready`. */
  readonly status: string;
  defineCommand(name: string, definition: { numberOfKeys?: number; lua: string }): void;
  multi(): unknown;
}

/** The prefix of every counter the quota keeps in Redis, unless told otherwise. */
export const DEFAULT_REDIS_KEY_PREFIX = 'petstore';

/**
 * Counters in Redis, shared by every instance on that server. Redis expires entries itself, so there is no upkeep;
 * `keyPrefix` keeps deployments that share one Redis apart (their key ids would collide).
 * @example const counters = createRedisCounters(client, 'petstore')
 */
export function createRedisCounters(client: RedisLike, keyPrefix = DEFAULT_REDIS_KEY_PREFIX): Counters {
  const limiter = new RateLimiterRedis({
    storeClient: client,
    rejectIfRedisNotReady: true,
    keyPrefix,
    points: COUNTER_CEILING,
    duration: 60,
  });
  return countersOn(limiter, { clearExpired: async () => 0, close: async () => {} }, 'redis');
}
