import type { Clock } from '../clock.js';

interface Entry {
  at: number;
  generation: number;
  value: Promise<unknown>;
}

/** Cached results by key, each for at most `ttlMs`; `invalidate` drops every one at once. */
export interface PageCache {
  get<T>(key: string, load: () => Promise<T>): Promise<T>;
  /** Forgets every result, including loads already under way (so they cannot bring back what a write changed). */
  invalidate(): void;
}

/**
 * Serves repeated reads from memory: a result is reused for `ttlMs` (so writes made by other instances show within
 * that time) and dropped at once by `invalidate` (so this instance's writes show in its next read).
 * @example const pages = createPageCache(clock, 1000); await pages.get('available:0:20', load)
 */
export function createPageCache(clock: Clock, ttlMs: number, maxEntries = 1024): PageCache {
  const entries = new Map<string, Entry>();
  let generation = 0;
  return {
    get<T>(key: string, load: () => Promise<T>): Promise<T> {
      const now = clock.now();
      const hit = entries.get(key);
      if (hit && hit.generation === generation && now - hit.at < ttlMs) return hit.value as Promise<T>;
      if (entries.size >= maxEntries) entries.clear();
      const value = load();
      const entry: Entry = { at: now, generation, value };
      entries.set(key, entry);
      entry.value.catch(() => {
        if (entries.get(key) === entry) entries.delete(key);
      });
      return value;
    },
    invalidate() {
      generation++;
      entries.clear();
    },
  };
}
