import { createHash } from 'node:crypto';
import type { QuotaSubject } from '../auth/principal.js';
import { systemClock, type Clock } from '../clock.js';
import { PetStoreError } from '../errors/pet-store-error.js';
import { schemaName } from '../storage/schema.js';
import type { Quota } from '../service/quota.js';
import type { RateLimitWindow } from '../service/response-meta.js';
import { addressBucket } from './address-bucket.js';
import { addressEntries } from './address-entries.js';
import { banEnd, banRefusal, banValue } from './ban.js';
import { coalesced } from './coalesced-counters.js';
import type { Counters } from './counters.js';
import { createKeptCounters, type KeptCountersOptions } from './kept-counters.js';
import { createKnownKeys, tokenDigest } from './known-keys.js';
import { createMemoryCounters } from './memory-counters.js';
import { memoized } from './memoized.js';
import { createPostgresCounters, type PostgresPoolLike } from './postgres-counters.js';
import { createRedisCounters, type RedisLike } from './redis-counters.js';
import { bindingFirst, DAY_MS, MINUTE_MS, windowIndex, windowState } from './windows.js';

/**
 * Ban threshold and length, and the limit on requests without a valid key.
 * @example const options: QuotaOptions = { banThreshold: 10, banSeconds: 900, perAddressPerMinute: 60 }
 */
export interface QuotaOptions {
  /** Requests a key may make after its first refusal in one minute window; the next one is banned. Default 10. */
  banThreshold?: number;
  /** Length of a ban in seconds, at most 7 days. Default 900. */
  banSeconds?: number;
  /** Requests per minute from one client address without a valid key. Default 60. */
  perAddressPerMinute?: number;
}

/**
 * Where the counters live: this process's memory, a table every instance on the database shares, or a Redis server
 * every instance shares.
 * @example const store: QuotaStore = { store: 'postgres', pool, clock: systemClock }
 */
export type QuotaStore =
  | {
      store: 'memory';
      clock?: Clock;
      /**
       * Keep the counters in this database's `rate_limits` table, so that a restart never gives a key a fresh
       * minute or day: for a database only this process writes (the embedded one). Unset: a restart starts afresh.
       */
      keep?: KeptCountersOptions;
      /**
       * The most client addresses whose counts are held at once (each for the five minutes its entry lives); past
       * that, the address counted first is forgotten. Default 10,000 (about 3.5 MB).
       */
      maxAddresses?: number;
    }
  | {
      store: 'postgres';
      /** A `pg` Pool on a database migrated with `migrateToLatest`; it stays the caller's to end. */
      pool: PostgresPoolLike;
      /** The schema the store's tables are in (its `schema` option); unset, the current one. */
      schema?: string | undefined;
      clock?: Clock;
      /** Seconds between deletions of expired rows, at most a day. Default 300. */
      clearExpiredEverySeconds?: number;
    }
  | {
      store: 'redis';
      /** An ioredis client that fails fast while Redis is away (see `openRedis`); it stays the caller's to close. */
      client: RedisLike;
      clock?: Clock;
      /** Prefix of the counters' Redis keys, to keep deployments that share one Redis apart. Default `petstore`. */
      keyPrefix?: string;
    };

/**
 * A quota with the upkeep of its store.
 * @example const quota: ClosableQuota = createQuota({ store: 'memory' }); await quota.close()
 */
export interface ClosableQuota extends Quota {
  /**
   * Settles once the quota counts: at once, but for memory counters kept in a database, which are read back first
   * (calls made meanwhile wait). Rejects if they cannot be read.
   * @example const quota = createQuota({ store: 'memory', keep: { db } }); await quota.ready()
   */
  ready(): Promise<void>;
  /** Deletes expired counters now and answers how many (memory entries drop on their own: 0, unless kept). */
  clearExpired(): Promise<number>;
  /**
   * Settles when what is written behind the answers (keys known at an address) has reached the store.
   * @example quota.tokenSucceeded(token, address); await quota.flush()
   */
  flush(): Promise<void>;
  /**
   * Writes what is written behind (memory counters kept in a database, too), then stops the timers; the pool, client
   * or database is left open.
   */
  close(): Promise<void>;
}

// Entries outlive their window (and a ban its end) by a margin, so the store's own expiry, which runs on its clock,
// never cuts a window short; which window a count belongs to is in the key, from the injected clock.
const MINUTE_ENTRY_SECONDS = 300;
const DAY_ENTRY_SECONDS = 2 * 86_400;
const BAN_MARGIN_SECONDS = 3_600;
// How long a shared store's value read by this instance (an address's count, a key's ban) is trusted.
const RECHECK_MS = 1_000;
// The longest address (an IPv6 address with a zone) and token (a key's longest form) whose derived names are kept.
const MAX_KEPT_ADDRESS = 64;
const MAX_KEPT_TOKEN = 255;
// The client addresses a memory store holds counts of, by default (about 350 bytes each).
const MAX_ADDRESSES = 10_000;
// The memory store expires entries with setTimeout, which cannot wait longer than 24.8 days.
const MAX_BAN_SECONDS = 7 * 86_400;

function wholeNumber(name: string, value: number, max = Number.MAX_SAFE_INTEGER, min = 1) {
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new RangeError(`${name} must be a whole number from ${min} to ${max}, not ${value}.`);
  }
  return value;
}

/** How many requests a key's windows count at once: 0 for calls of a batch refused after its first 429. */
const countOf = (requests: number) => wholeNumber('requests', requests, Number.MAX_SAFE_INTEGER, 0);

/** The counter name of an address: its bucket (an IPv6 client's /64), hashed when long. */
function addressKey(address: string) {
  const bucket = addressBucket(address);
  return bucket.length <= 64 ? bucket : `#${createHash('sha256').update(bucket).digest('hex')}`;
}

function refused(
  code: 'rate_limited' | 'api_key_banned',
  message: string,
  windows: RateLimitWindow[],
  retryAfter: number,
) {
  return new PetStoreError(code, message, { meta: { rateLimit: windows, retryAfter } });
}

/**
 * The plan quotas of DECISIONS "Gaps in limits": a fixed minute and a UTC day per key, bans, a per-address minute.
 * @example const quota = createQuota({ store: 'postgres', pool, clock }, { banSeconds: 900 })
 */
export function createQuota(config: QuotaStore, options: QuotaOptions = {}): ClosableQuota {
  const clock = config.clock ?? systemClock;
  const banThreshold = wholeNumber('banThreshold', options.banThreshold ?? 10);
  const banSeconds = wholeNumber('banSeconds', options.banSeconds ?? 900, MAX_BAN_SECONDS);
  const perAddressPerMinute = wholeNumber('perAddressPerMinute', options.perAddressPerMinute ?? 60);
  const kept = config.store === 'memory' && config.keep ? createKeptCounters(config.keep) : undefined;
  const memory = config.store === 'memory' ? (kept ?? createMemoryCounters()) : undefined;
  const counters: Counters =
    memory ??
    (config.store === 'postgres'
      ? coalesced(
          createPostgresCounters(
            config.pool,
            wholeNumber('clearExpiredEverySeconds', config.clearExpiredEverySeconds ?? 300, 86_400) * 1000,
            schemaName(config.schema),
          ),
        )
      : config.store === 'redis'
        ? coalesced(createRedisCounters(config.client, config.keyPrefix))
        : createMemoryCounters());
  // In memory, every address counted holds an entry for five minutes: at most maxAddresses of them (the shared
  // stores expire theirs in the store, not in this process).
  const addressCounted = memory
    ? addressEntries(wholeNumber('maxAddresses', (config.store === 'memory' ? config.maxAddresses : undefined) ?? MAX_ADDRESSES), memory.forget)
    : undefined;

  // The bans this instance is writing: the requests of one key past the threshold at once (a batch's calls, a
  // burst) all read "not banned" before the first write lands, and each would write its own ban.
  const banning = new Map<string, Promise<number>>();
  function startBan(banKey: string, now: number): Promise<number> {
    let written = banning.get(banKey);
    if (!written) {
      const value = banValue(now, banSeconds);
      written = counters
        .write(banKey, value, banSeconds + BAN_MARGIN_SECONDS)
        .then(() => (remember(banKey, value, now), value))
        .finally(() => banning.delete(banKey));
      banning.set(banKey, written);
    }
    return written;
  }

  async function consumeKey(key: QuotaSubject, requests = 1): Promise<RateLimitWindow[]> {
    const now = clock.now();
    const { perMinute, perDay } = key.limits;
    const minuteKey = `m:${key.id}:${windowIndex(now, MINUTE_MS)}`;
    const dayKey = `d:${key.id}:${windowIndex(now, DAY_MS)}`;
    const banKey = `b:${key.id}`;

    const [ban, counts] = await Promise.all([
      readRecent(banKey, now),
      counters.incrementWindows(
        { key: minuteKey, seconds: MINUTE_ENTRY_SECONDS },
        { key: dayKey, seconds: DAY_ENTRY_SECONDS },
        countOf(requests),
        perMinute,
      ),
    ]);
    const { minute: minuteCount, day: dayCount } = counts;
    const minuteFits = minuteCount <= perMinute;
    const minute = windowState('minute', perMinute, minuteCount, MINUTE_MS, now);
    const day = windowState('day', perDay, dayCount, DAY_MS, now);
    const windows = bindingFirst(minute, day);

    let bannedUntil = ban === undefined ? -Infinity : banEnd(ban);
    if (bannedUntil <= now && minuteCount > perMinute + banThreshold) bannedUntil = banEnd(await startBan(banKey, now));
    if (bannedUntil > now) throw banRefusal(windows, bannedUntil, now);
    if (!minuteFits) {
      throw refused('rate_limited', `Rate limit exceeded: ${perMinute} requests per minute.`, windows, minute.resetIn);
    }
    if (dayCount > perDay) {
      throw refused('rate_limited', `Rate limit exceeded: ${perDay} requests per day (UTC).`, windows, day.resetIn);
    }
    return windows;
  }

  function addressWindow(address: string, count: number, now: number): RateLimitWindow[] {
    const window = windowState('address', perAddressPerMinute, count, MINUTE_MS, now);
    if (count > perAddressPerMinute) {
      throw refused(
        'rate_limited',
        `Too many requests without a valid API key: ${perAddressPerMinute} per minute from one address.`,
        [window],
        window.resetIn,
      );
    }
    return [window];
  }

  // Every request asks for its address's counter and, once served, its token's digest: each worked out once (a
  // string made per request costs more as a map key than the look-up it is made for). Only short strings are kept
  // (an address as a socket gives it, a token as long as a key may be): a stranger's 15 KB tokens or forwarded
  // addresses are worked out each time and never held.
  const addressOf = memoized(addressKey, { max: 10_000, maxLength: MAX_KEPT_ADDRESS });
  const digestOf = memoized(tokenDigest, { max: 10_000, maxLength: MAX_KEPT_TOKEN });
  const counterNames = new Map<string, { window: number; name: string }>();
  const addressCounter = (address: string, now: number) => {
    const window = windowIndex(now, MINUTE_MS);
    if (address.length > MAX_KEPT_ADDRESS) return `a:${addressOf(address)}:${window}`;
    let counter = counterNames.get(address);
    if (counter?.window !== window) {
      if (!counter && counterNames.size >= 10_000) counterNames.clear();
      counter = { window, name: `a:${addressOf(address)}:${window}` };
      counterNames.set(address, counter);
    }
    return counter.name;
  };
  // On a shared store, what this instance last learnt of a counter (from its own writes at once, from a read for up
  // to a second), so a request with a valid key does not pay a round trip for its address or its key's ban.
  const known = config.store === 'memory' ? undefined : new Map<string, { value: number | undefined; at: number }>();
  const remember = (counter: string, value: number | undefined, at: number) => {
    if (!known) return;
    if (known.size >= 10_000) known.clear();
    known.set(counter, { value, at });
  };
  async function readRecent(counter: string, now: number): Promise<number | undefined> {
    const seen = known?.get(counter);
    if (seen && now - seen.at < RECHECK_MS) return seen.value;
    const value = await counters.read(counter);
    remember(counter, value, now);
    return value;
  }

  async function consumeAddress(address: string, requests = 1): Promise<RateLimitWindow[]> {
    const now = clock.now();
    const counter = addressCounter(address, now);
    const count = await counters.increment(counter, MINUTE_ENTRY_SECONDS, wholeNumber('requests', requests));
    addressCounted?.(counter);
    remember(counter, count, now);
    return addressWindow(address, count, now);
  }

  async function checkAddress(address: string): Promise<void> {
    const now = clock.now();
    const count = (await readRecent(addressCounter(address, now), now)) ?? 0;
    // Refused exactly as the next request without a valid key would be: counted one more.
    if (count >= perAddressPerMinute) addressWindow(address, count + 1, now);
  }

  async function standing(key: QuotaSubject) {
    const now = clock.now();
    const { perMinute, perDay } = key.limits;
    const [minuteCount, dayCount, ban] = await Promise.all([
      counters.read(`m:${key.id}:${windowIndex(now, MINUTE_MS)}`),
      counters.read(`d:${key.id}:${windowIndex(now, DAY_MS)}`),
      readRecent(`b:${key.id}`, now),
    ]);
    const minute = windowState('minute', perMinute, minuteCount ?? 0, MINUTE_MS, now);
    const day = windowState('day', perDay, dayCount ?? 0, DAY_MS, now);
    const bannedUntil = ban === undefined ? undefined : banEnd(ban);
    const windows = bindingFirst(minute, day);
    return bannedUntil !== undefined && bannedUntil > now ? { windows, bannedUntil } : { windows };
  }

  async function consumeOwn(key: QuotaSubject, operationId: string, perMinute: number): Promise<RateLimitWindow[]> {
    const now = clock.now();
    const count = await counters.increment(`o:${operationId}:${key.id}:${windowIndex(now, MINUTE_MS)}`, MINUTE_ENTRY_SECONDS);
    const window = windowState('own', perMinute, count, MINUTE_MS, now);
    // Past its own limit and the ban threshold, the caller is banned as past the plan's windows (DECISIONS "Gaps in
    // limits"): a free endpoint is no free flood.
    if (count > perMinute + banThreshold) {
      const banKey = `b:${key.id}`;
      const ban = await readRecent(banKey, now);
      const bannedUntil = ban !== undefined && banEnd(ban) > now ? banEnd(ban) : banEnd(await startBan(banKey, now));
      throw banRefusal([window], bannedUntil, now);
    }
    if (count > perMinute) {
      throw refused('rate_limited', `Rate limit exceeded: ${perMinute} calls of ${operationId} per minute.`, [window], window.resetIn);
    }
    return [window];
  }

  // Which keys succeeded from which addresses: in the same store, so every instance on it knows them.
  const knownKeys = createKnownKeys(counters, clock);

  return Object.freeze({
    consumeKey,
    consumeAddress,
    checkAddress,
    knowsToken: (token: string, address: string) => knownKeys.has(digestOf(token), addressOf(address)),
    tokenSucceeded: (token: string, address: string) => knownKeys.record(digestOf(token), addressOf(address)),
    standing,
    consumeOwn,
    ready: async () => kept?.ready,
    clearExpired: counters.clearExpired,
    flush: knownKeys.flush,
    async close() {
      await knownKeys.flush();
      await counters.close();
    },
  });
}
