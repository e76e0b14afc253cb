import type { PreconditionFailedError } from './pet-store-api-error.js';
import type { RateLimitHandler } from './rate-limit-fields.js';

/** Options of one call; each overrides the client's. */
export interface CallOptions {
  /** Aborts the call, also while it waits to retry. */
  signal?: AbortSignal | undefined;
  /**
   * Milliseconds the whole call may take: its wait for a slot and for a closed window, every attempt, its bodies and
   * its retries' waits; a wait that would pass it is not begun. Past it the call rejects with a `TimeoutError`.
   */
  timeout?: number | undefined;
  /**
   * The `Idempotency-Key` of a write (ignored by reads). By default each call makes one and sends it on every retry;
   * pass your own to make a call made again later (after a crash, say) safe too.
   */
  idempotencyKey?: string | undefined;
  /**
   * The `If-Match` of a change (`updatePet`, `deletePet`; ignored by reads): the `ETag` of the version the change is
   * meant for, or `*`. When the animal is at another version the call rejects with a {@link PreconditionFailedError}
   * carrying the current `etag`, and nothing changed.
   */
  ifMatch?: string | undefined;
  /** Retries after the first attempt. */
  maxRetries?: number | undefined;
  /** Extra request headers (`X-Request-Id`, say). */
  headers?: Record<string, string> | undefined;
  /** Told the rate-limit fields of this call's answers (each attempt's), beside the client's `onRateLimit`. */
  onRateLimit?: RateLimitHandler | undefined;
}
