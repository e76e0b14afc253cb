import { loadOptional, type RedisLike } from '@petstore/core';
import type { RedisOptions } from 'ioredis';

/**
 * An ioredis client, as far as the packages and their users call it: the quota's counters, `ping` for health, and
 * `disconnect` to close. Declared here so that a host without Redis needs neither ioredis nor its types.
 */
export interface RedisClient extends RedisLike {
  ping(): Promise<string>;
  set(key: string, value: string, expiry: 'PX', milliseconds: number): Promise<unknown>;
  disconnect(): void;
}

/**
 * Whether Redis takes writes now, as the quota needs it to: a `SET` with a short expiry under the deployment's key
 * prefix. A `PING` is answered also by a Redis that refuses every write (out of memory with `noeviction`, or a
 * read-only replica after `REPLICAOF`), while every keyed request gets 503.
 * @example const up = await redisTakesWrites(client, 'petstore')
 */
export function redisTakesWrites(client: Pick<RedisClient, 'set'>, keyPrefix: string): Promise<boolean> {
  return client.set(`${keyPrefix}:health`, '1', 'PX', 60_000).then(
    () => true,
    () => false,
  );
}

/** How long start-up waits for Redis, and how long one command may take before its request answers 503. */
const CONNECT_TIMEOUT_MS = 5_000;
const COMMAND_TIMEOUT_MS = 2_000;

// While Redis is away a request must fail at once (503), never wait in a queue or be sent twice (an increment
// resent after a reconnect would count twice); the client keeps reconnecting on its own, at most a second apart.
const FAIL_FAST: RedisOptions = {
  enableOfflineQueue: false,
  maxRetriesPerRequest: 0,
  autoResendUnfulfilledCommands: false,
  connectTimeout: CONNECT_TIMEOUT_MS,
  commandTimeout: COMMAND_TIMEOUT_MS,
  retryStrategy: (attempt) => Math.min(attempt * 100, 1_000),
  lazyConnect: true,
};

/** `redis://user:***@host:port/db`: the URL without its password, for messages. */
function redacted(url: string) {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'REDIS_URL';
  }
}

/** What {@link openRedis} does when Redis cannot be reached at first. */
export interface OpenRedisOptions {
  /**
   * Told why, instead of throwing: the client is answered at once and keeps reconnecting by itself (at most a second
   * apart), and its commands fail until Redis answers, so a service can start during a Redis outage and serve 503
   * until it returns. Without it, `openRedis` throws. A server that answers but refuses the client (a wrong
   * password) still throws.
   */
  onUnreachable?: ((error: Error) => void) | undefined;
}

/** Errors of the connection itself: Redis is away (or not yet there), not misconfigured. */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE']);

/**
 * Connects an ioredis client for the shared quota counters and waits until it is ready; throws when Redis cannot be
 * reached, unless `onUnreachable` is given. Needs the package `ioredis`, loaded only here. Connection errors later
 * never end the process: requests answer 503 until the client reconnects.
 * @example const redis = await openRedis('redis://127.0.0.1:6379'); … redis.disconnect()
 */
export async function openRedis(url: string, options: OpenRedisOptions = {}): Promise<RedisClient> {
  const { Redis } = await loadOptional('ioredis', () => import('ioredis'), 'The redis rate-limit store');
  const client = new Redis(url, FAIL_FAST);
  let lastError: Error | undefined;
  client.on('error', (error: Error) => {
    // Redis went away; commands fail (503) and the client reconnects by itself.
    lastError = error;
  });
  try {
    await client.connect();
  } catch (error) {
    // The connection's own error (refused, wrong password) says more than "Connection is closed".
    const reason = lastError ?? (error as Error);
    const failure = new Error(`Cannot reach Redis at ${redacted(url)}: ${reason.message}`, { cause: reason });
    const code = (reason as NodeJS.ErrnoException).code;
    if (options.onUnreachable && code !== undefined && UNREACHABLE.has(code) && client.status !== 'end') {
      options.onUnreachable(failure);
      return client;
    }
    client.disconnect();
    throw failure;
  }
  return client;
}
