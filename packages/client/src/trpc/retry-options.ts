import type { ClientClock } from '../clock.js';

/** How the tRPC link retries; the same limits as the REST client's. */
export interface RetryLinkOptions {
  /** Retries after the first attempt of a call. Default 2. */
  maxRetries?: number | undefined;
  /** The longest wait before a retry, in ms; a 429 or 503 asking for longer is not retried. Default 60 000. */
  maxRetryWait?: number | undefined;
  /** Calls in flight at once (below the service's ban threshold of 10 refusals). Default 8. */
  maxConcurrency?: number | undefined;
  /**
   * Whether the link after this one sends each mutation's `op.context.idempotencyKey` as its `Idempotency-Key`
   * ({@link idempotencyKeyHeader}); only then is a mutation retried after a 503 or a lost connection, which may have
   * run it. `petStoreLinks` does both. Default false.
   */
  idempotencyKeys?: boolean | undefined;
  clock?: ClientClock | undefined;
}
