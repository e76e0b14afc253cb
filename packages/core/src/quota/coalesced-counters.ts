import { fittingInMinute, type CounterKey, type Counters, type WindowCounts } from './counters.js';

interface Batch {
  seconds: number;
  waiters: { resolve: (count: number) => void; reject: (error: unknown) => void }[];
}

interface WindowsBatch {
  minute: CounterKey;
  day: CounterKey;
  perMinute: number;
  waiters: { resolve: (counts: WindowCounts) => void; reject: (error: unknown) => void }[];
}

/**
 * Counters that send at most one increment per key to the store at a time: increments that arrive meanwhile are
 * added up and sent as one `+n` when it returns, and each caller gets its own count within the new total. Counts
 * stay exact (the store adds atomically; every request has its own place), while round trips under load drop by
 * the size of the batches. Concurrent reads of one key share one look-up. A key's minute and day windows are counted
 * the same way, together: of a batch of n, the first ones within the minute's limit take their places in the day,
 * the others see the day as it stands.
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

  const windowsInFlight = new Set<string>();
  const windowsQueued = new Map<string, WindowsBatch>();

  function sendWindows(id: string, batch: WindowsBatch) {
    windowsInFlight.add(id);
    const amount = batch.waiters.length;
    inner
      .incrementWindows(batch.minute, batch.day, amount, batch.perMinute)
      .then(
        ({ minute, day }) => {
          const fit = fittingInMinute(minute, amount, batch.perMinute);
          batch.waiters.forEach((waiter, i) =>
            waiter.resolve({ minute: minute - amount + 1 + i, day: i < fit ? day - fit + 1 + i : day }),
          );
        },
        (error: unknown) => batch.waiters.forEach((waiter) => waiter.reject(error)),
      )
      .finally(() => {
        windowsInFlight.delete(id);
        const next = windowsQueued.get(id);
        if (next) {
          windowsQueued.delete(id);
          sendWindows(id, next);
        }
      });
  }

  return {
    incrementWindows(minute, day, amount, perMinute) {
      if (amount !== 1) return inner.incrementWindows(minute, day, amount, perMinute);
      const id = `${minute.key} ${day.key} ${perMinute}`;
      return new Promise<WindowCounts>((resolve, reject) => {
        if (!windowsInFlight.has(id)) return sendWindows(id, { minute, day, perMinute, waiters: [{ resolve, reject }] });
        let batch = windowsQueued.get(id);
        if (!batch) windowsQueued.set(id, (batch = { minute, day, perMinute, waiters: [] }));
        batch.waiters.push({ resolve, reject });
      });
    },
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
