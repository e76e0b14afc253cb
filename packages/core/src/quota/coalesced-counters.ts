import type { Counters } from './counters.js';

interface Batch {
  seconds: number;
  waiters: { resolve: (count: number) => void; reject: (error: unknown) => void }[];
}

/**
 * Counters that send at most one increment per key to the store at a time: increments that arrive meanwhile are
 * added up and sent as one `+n` when it returns, and each caller gets its own count within the new total. Counts
 * stay exact (the store adds atomically; every request has its own place), while round trips under load drop by
 * the size of the batches. Concurrent reads of one key share one look-up.
 * @example const counters = coalesced(createPostgresCounters(pool))
 */
export function coalesced(inner: Counters): Counters {
  const inFlight = new Set<string>();
  const queued = new Map<string, Batch>();
  const reading = new Map<string, Promise<number | undefined>>();

  function send(key: string, batch: Batch) {
    inFlight.add(key);
    const amount = batch.waiters.length;
    inner.increment(key, batch.seconds, amount).then(
      (total) => batch.waiters.forEach((waiter, i) => waiter.resolve(total - amount + 1 + i)),
      (error: unknown) => batch.waiters.forEach((waiter) => waiter.reject(error)),
    ).finally(() => {
      inFlight.delete(key);
      const next = queued.get(key);
      if (next) {
        queued.delete(key);
        send(key, next);
      }
    });
  }

  return {
    increment(key, seconds, amount = 1) {
      if (amount !== 1) return inner.increment(key, seconds, amount);
      return new Promise<number>((resolve, reject) => {
        if (!inFlight.has(key)) return send(key, { seconds, waiters: [{ resolve, reject }] });
        let batch = queued.get(key);
        if (!batch) queued.set(key, (batch = { seconds, waiters: [] }));
        batch.waiters.push({ resolve, reject });
      });
    },
    read(key) {
      let pending = reading.get(key);
      if (!pending) {
        pending = inner.read(key).finally(() => reading.delete(key));
        reading.set(key, pending);
      }
      return pending;
    },
    write: (key, value, seconds) => inner.write(key, value, seconds),
    clearExpired: () => inner.clearExpired(),
    close: () => inner.close(),
  };
}
