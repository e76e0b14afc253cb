/**
 * The defaults of the REST client and the tRPC links, each documented in the README: every call ends within
 * `timeout`, reads at most `maxResponseBytes` of an answer, and waits at most `maxRetryWait` before a retry.
 * @example createClient({ baseUrl, timeout: clientDefaults.timeout * 2 })
 */
export const clientDefaults = Object.freeze({
  /** Retries after a call's first attempt. */
  maxRetries: 2,
  /** The longest wait before a retry or for a closed window, in ms: two windows of the service's minute would not fit. */
  maxRetryWait: 60_000,
  /** Milliseconds a whole call may take: queue, attempts, waits and bodies included. */
  timeout: 120_000,
  /** Requests in flight at once: fewer than the 10 refusals in a minute that ban a key. */
  maxConcurrency: 8,
  /** The largest answer body read, in bytes (10 MiB; a page of 100 pets is about 10 kB). */
  maxResponseBytes: 10 * 1024 * 1024,
});
