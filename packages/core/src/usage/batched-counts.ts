/** What {@link createBatchedCounts} is built from. */
export interface BatchedCountsOptions<T> {
  /** How often what was counted is handed to `write`, in ms (a timer that starts at the first count). */
  flushEveryMs: number;
  /** An entry's name: two entries of one name are one count. */
  idOf(entry: T): string;
  /** Adds the counts of `from` to `into`, an entry of the same name. */
  merge(into: T, from: T): void;
  /**
   * Adds a batch to the database; resolves with the entries it could not write (the database away), which are
   * counted again for the next flush, so that nothing is lost and nothing is written twice.
   */
  write(batch: T[]): Promise<readonly T[]>;
}

/** Counts kept in memory by name and written in batches, behind the requests that make them. */
export interface BatchedCounts<T> {
  /** The pending entry named `id`, made by `fresh` when there is none, for the caller to count into. */
  entry(id: string, fresh: () => T): T;
  /** Counts `entry` in, merged with the pending entry of its name. */
  add(entry: T): void;
  /** Hands what is pending to `write`, after any flush under way; settles once written or kept back. */
  flush(): Promise<void>;
  /** Changes at every flush: an entry got from `entry` before it is no longer pending. */
  readonly generation: number;
  /** Stops the timer after a last flush. */
  close(): Promise<void>;
}

/**
 * Counting that costs a request no database write: entries are counted in memory by name, and a timer (every
 * `flushEveryMs`), `flush()` and `close()` hand them to `write` as one batch, one flush after another. What `write`
 * could not write is counted again for the next. The usage ledger and the deprecated-call inventory count this way.
 * @example const counts = createBatchedCounts({ flushEveryMs: 5_000, idOf: (e) => e.id, merge: (a, b) => (a.n += b.n), write })
 */
export function createBatchedCounts<T>(options: BatchedCountsOptions<T>): BatchedCounts<T> {
  const { flushEveryMs, idOf, merge, write } = options;
  let pending = new Map<string, T>();
  let flushing: Promise<void> = Promise.resolve();
  let timer: ReturnType<typeof setInterval> | undefined;
  let generation = 0;

  const started = () => {
    if (timer !== undefined) return;
    timer = setInterval(() => void flush(), flushEveryMs);
    timer.unref();
  };

  function put(entry: T) {
    const id = idOf(entry);
    const known = pending.get(id);
    if (known) merge(known, entry);
    else pending.set(id, { ...entry });
  }

  function flush(): Promise<void> {
    if (pending.size === 0) return flushing;
    const batch = [...pending.values()];
    pending = new Map();
    generation += 1;
    // Kept back, unwritten counts wait for the next flush (the timer's, or the next count's).
    const keep = (entries: readonly T[]) => {
      for (const entry of entries) put(entry);
    };
    flushing = flushing.then(() => write(batch)).then(keep, () => keep(batch));
    return flushing;
  }

  return {
    entry(id, fresh) {
      let entry = pending.get(id);
      if (entry === undefined) pending.set(id, (entry = fresh()));
      started();
      return entry;
    },
    add(entry) {
      put(entry);
      started();
    },
    flush,
    get generation() {
      return generation;
    },
    async close() {
      if (timer !== undefined) clearInterval(timer);
      timer = undefined;
      await flush();
    },
  };
}
