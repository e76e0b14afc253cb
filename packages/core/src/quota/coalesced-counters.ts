import { fittingInMinute, type CounterKey, type Counters, type WindowCounts } from './counters.js';

/** One caller's share of a batch: how many requests it counts, and how to answer it. */
interface Waiter<T> {
  amount: number;
  resolve: (value: T) => void;
  reject: (error: unknown) => void;
}

interface Batch {
  seconds: number;
  waiters: Waiter<number>[];
}

interface WindowsBatch {
  minute: CounterKey;
  day: CounterKey;
  perMinute: number;
  waiters: Waiter<WindowCounts>[];
}

const total = (waiters: readonly { amount: number }[]) => waiters.reduce((sum, waiter) => sum + waiter.amount, 0);

/**
 * Counters that send at most one increment per key to the store at a time: increments that arrive meanwhile are
 * added up and sent as one `+n` when it returns, and each caller gets its own count within the new total (that of its
 * last request, when it counts several at once). Counts
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
    const amount = total(batch.waiters);
    inner.increment(key, batch.seconds, amount).then(
      (count) => {
        let before = count - amount;
        for (const waiter of batch.waiters) waiter.resolve((before += waiter.amount));
      },
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
    const amount = total(batch.waiters);
    inner
      .incrementWindows(batch.minute, batch.day, amount, batch.perMinute)
      .then(
        ({ minute, day }) => {
          // The batch's first `fit` requests took places in the day; a caller sees the day after its own fitting ones.
          const fit = fittingInMinute(minute, amount, batch.perMinute);
          let counted = 0;
          for (const waiter of batch.waiters) {
            counted += waiter.amount;
            waiter.resolve({ minute: minute - amount + counted, day: day - fit + Math.min(fit, counted) });
          }
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
      const id = `${minute.key} ${day.key} ${perMinute}`;
      return new Promise<WindowCounts>((resolve, reject) => {
        if (!windowsInFlight.has(id)) return sendWindows(id, { minute, day, perMinute, waiters: [{ amount, resolve, reject }] });
        let batch = windowsQueued.get(id);
        if (!batch) windowsQueued.set(id, (batch = { minute, day, perMinute, waiters: [] }));
        batch.waiters.push({ amount, resolve, reject });
      });
    },
    increment(key, seconds, amount = 1) {
      return new Promise<number>((resolve, reject) => {
        if (!inFlight.has(key)) return send(key, { seconds, waiters: [{ amount, resolve, reject }] });
        let batch = queued.get(key);
        if (!batch) queued.set(key, (batch = { seconds, waiters: [] }));
        batch.waiters.push({ amount, resolve, reject });
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
    ...(inner.readKnownAt ? { readKnownAt: inner.readKnownAt.bind(inner) } : {}),
    write: (key, value, seconds) => inner.write(key, value, seconds),
    clearExpired: () => inner.clearExpired(),
    close: () => inner.close(),
  };
}
