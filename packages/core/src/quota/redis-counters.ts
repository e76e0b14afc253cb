import { RateLimiterRedis } from 'rate-limiter-flexible';
import { COUNTER_CEILING, countersOn, failureOf, type Counters } from './counters.js';

/**
 * The part of an ioredis client the quota uses: pass the client itself. Core loads no Redis driver; the caller
 * makes the client fail fast while Redis is away (no offline queue, no retried commands), as `openRedis` in
 * `@petstore/drivers` does.
 * @example createQuota({ store: 'redis', client: new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 0 }) })
 */
export interface RedisLike {
  /** ioredis's connection state; counters are refused at once unless it is `ready`. */
  readonly status: string;
  defineCommand(name: string, definition: { numberOfKeys?: number; lua: string }): void;
  multi(): unknown;
}

// Both windows in one script, each as rate-limiter-flexible keeps a counter (created at 0 with its TTL, then
// INCRBY); the day gets the part of the amount that fits in the minute. KEYS: minute, day; ARGV: amount, minute
// seconds, day seconds, requests per minute.
const INCREMENT_WINDOWS = `
local function add(key, amount, seconds)
  redis.call('set', key, 0, 'EX', seconds, 'NX')
  local count = redis.call('incrby', key, amount)
  if redis.call('pttl', key) == -1 then redis.call('expire', key, seconds) end
  return count
end
local amount = tonumber(ARGV[1])
local minute = add(KEYS[1], amount, ARGV[2])
local fit = math.min(amount, math.max(0, tonumber(ARGV[4]) - (minute - amount)))
return {minute, add(KEYS[2], fit, ARGV[3])}`;
const COMMAND = 'petstoreIncrementWindows';

type WithCommand = Record<typeof COMMAND, (...args: (string | number)[]) => Promise<[number, number]>>;

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
  const counters = countersOn(limiter, { clearExpired: async () => 0, close: async () => {} }, 'redis');
  client.defineCommand(COMMAND, { numberOfKeys: 2, lua: INCREMENT_WINDOWS });
  const storeFailure = failureOf('redis');
  return {
    ...counters,
    async incrementWindows(minute, day, amount, perMinute) {
      // As rate-limiter-flexible's counters: refused at once while the client is not connected, never queued.
      if (client.status !== 'ready') storeFailure(new Error(`Redis is ${client.status}`));
      const [minuteCount, dayCount] = await (client as unknown as WithCommand)
        [COMMAND](`${keyPrefix}:${minute.key}`, `${keyPrefix}:${day.key}`, amount, minute.seconds, day.seconds, perMinute)
        .catch(storeFailure);
      return { minute: minuteCount, day: dayCount };
    },
  };
}
