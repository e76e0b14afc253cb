import type { ClientClock } from '../clock.js';
import type { RateLimitHandler } from '../rate-limit-fields.js';

/** How the tRPC link retries; the same limits and defaults as the REST client's (`clientDefaults`). */
export interface RetryLinkOptions {
  /** Retries after the first attempt of a call. Default 2. */
  maxRetries?: number | undefined;
  /**
   * The longest wait before a retry, in ms; a 429 or 503 asking for longer is not retried. It also bounds how long
   * any answer can stop the link from sending. Default 60 000.
   */
  maxRetryWait?: number | undefined;
  /** Calls in flight at once (below the service's ban threshold of 10 refusals). Default 8. */
  maxConcurrency?: number | undefined;
  /**
   * Milliseconds a whole call may take: its wait for a slot, every attempt and the waits between them. Past it the
   * call rejects with a `TRPCClientError` whose cause is a `TimeoutError`. Default 120 000; `Infinity` for no limit.
   */
  timeout?: number | undefined;
  /**
   * Told the rate-limit fields of every answer that carries them. A call can pass its own in its context:
   * `query(input, { context: { onRateLimit } })`.
   */
  onRateLimit?: RateLimitHandler | undefined;
  /**
   * Whether the link after this one sends each mutation's `op.context.idempotencyKey` as its `Idempotency-Key`
   * ({@link idempotencyKeyHeader}); only then is a mutation retried after a 503 or a lost connection, which may have
   * run it. `petStoreLinks` does both. Default false.
   */
  idempotencyKeys?: boolean | undefined;
  clock?: ClientClock | undefined;
}
