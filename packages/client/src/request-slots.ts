import pLimit from 'p-limit';

/** The requests a client has in flight, at most `concurrency` at once (p-limit's queue). */
export interface RequestSlots {
  /**
   * Runs `task` in a free slot, after those queued before it. Rejects with the signal's reason once it aborts, also
   * while queued (the entry then gives its slot back the moment its turn comes, without running).
   */
  run<T>(task: () => Promise<T>, signal: AbortSignal): Promise<T>;
  /** How many may run at once from now on. */
  concurrency: number;
}

/**
 * Request slots on p-limit, whose queue wakes the next task whatever the last one did.
 * @example const slots = requestSlots(8); await slots.run(() => fetch(url, { signal }), signal)
 */
export function requestSlots(concurrency: number): RequestSlots {
  const limit = pLimit(concurrency);
  return {
    run: <T>(task: () => Promise<T>, signal: AbortSignal) =>
      new Promise<T>((resolve, reject) => {
        if (signal.aborted) return reject(signal.reason);
        const leave = () => reject(signal.reason);
        signal.addEventListener('abort', leave, { once: true });
        void limit(async () => {
          if (signal.aborted) return;
          try {
            resolve(await task());
          } catch (error) {
            reject(error);
          } finally {
            signal.removeEventListener('abort', leave);
          }
        });
      }),
    get concurrency() {
      return limit.concurrency;
    },
    set concurrency(value: number) {
      limit.concurrency = value;
    },
  };
}
