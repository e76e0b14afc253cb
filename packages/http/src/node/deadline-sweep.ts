/** How often a {@link DeadlineSweep} looks at its deadlines: a deadline is met at most this late. */
export const SWEEP_EVERY_MS = 250;

/** Deadlines watched together, by one interval. */
export interface DeadlineSweep {
  /**
   * Calls `expire` once `deadline` (a `performance.now()` time) has passed, unless the returned function is called
   * first.
   */
  watch(deadline: number, expire: () => void): () => void;
}

/**
 * One interval for many deadlines, instead of a timer per request: the node adapter reads each request's body with
 * a deadline, and a timer set and cleared for every create cost about 2 µs of CPU (measured), where adding to and
 * removing from a set costs next to nothing. The interval runs only while something is watched and never keeps the
 * process alive; a deadline is met up to {@link SWEEP_EVERY_MS} late.
 * @example const sweep = createDeadlineSweep(); const unwatch = sweep.watch(performance.now() + 10_000, onLate)
 */
export function createDeadlineSweep(): DeadlineSweep {
  const watched = new Set<{ deadline: number; expire: () => void }>();
  let timer: NodeJS.Timeout | undefined;
  const sweep = () => {
    const now = performance.now();
    for (const entry of watched) {
      if (entry.deadline > now) continue;
      watched.delete(entry);
      entry.expire();
    }
    if (watched.size === 0) {
      clearInterval(timer);
      timer = undefined;
    }
  };
  return {
    watch(deadline, expire) {
      const entry = { deadline, expire };
      watched.add(entry);
      timer ??= setInterval(sweep, SWEEP_EVERY_MS).unref();
      return () => void watched.delete(entry);
    },
  };
}
