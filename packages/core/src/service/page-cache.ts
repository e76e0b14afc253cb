import type { Clock } from '../clock.js';

interface Entry<T> {
  at: number;
  generation: number;
  value: Promise<T>;
}

/** Cached results by key, each for at most `ttlMs`; `invalidate` drops every one at once. */
export interface PageCache<T> {
  get(key: string, load: () => Promise<T>): Promise<T>;
  /** Forgets every result, including loads already under way (so they cannot bring back what a write changed). */
  invalidate(): void;
}

/**
 * Serves repeated reads from memory: a result is reused for `ttlMs` (so writes made by other instances show within
 * that time) and dropped at once by `invalidate` (so this instance's writes show in its next read).
 * @example const pages = createPageCache<Pet[]>(clock, 1000); await pages.get('available:0:20', load)
 */
export function createPageCache<T>(clock: Clock, ttlMs: number, maxEntries = 1024): PageCache<T> {
  const entries = new Map<string, Entry<T>>();
  let generation = 0;
  return {
    get(key, load) {
      const now = clock.now();
      const hit = entries.get(key);
      if (hit && hit.generation === generation && now - hit.at < ttlMs) return hit.value;
      if (entries.size >= maxEntries) entries.clear();
      const entry: Entry<T> = { at: now, generation, value: load() };
      entries.set(key, entry);
      entry.value.catch(() => {
        if (entries.get(key) === entry) entries.delete(key);
      });
      return entry.value;
    },
    invalidate() {
      generation++;
      entries.clear();
    },
  };
}
