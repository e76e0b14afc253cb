import LRUCache from 'lru-cache';
import type { Clock } from '../clock.js';
import { approximateBytes } from './approximate-bytes.js';

/** Cached results by key, each for at most `ttlMs`, all of them within a byte budget; `invalidate` drops every one. */
export interface PageCache {
  get<T>(key: string, load: () => Promise<T>): Promise<T>;
  /** Forgets every result, including loads already under way (so they cannot bring back what a write changed). */
  invalidate(): void;
  /** The approximate bytes the cached results hold now. */
  readonly bytes: number;
}

/** What the list pages of one store may hold by default: about 80 full pages of 255-emoji names, 1,000 of short ones. */
export const PAGE_CACHE_BYTES = 8 * 1024 * 1024;

/** What an entry costs besides its key and value: the cache's own bookkeeping and the promise. */
const ENTRY_OVERHEAD = 128;

interface Settled {
  value: Promise<unknown>;
  /** The clock's time from which the result is no longer served: `ttlMs` after its load began. */
  expiresAt: number;
}

interface Loading {
  generation: number;
  value: Promise<unknown>;
}

/**
 * Serves repeated reads from memory: a result is reused for `ttlMs` from when its load began (so writes made by other
 * instances show within that time) and dropped at once by `invalidate` (so this instance's writes show in its next
 * read). Results are kept within `maxBytes` (the least recently used go first, and one larger than the budget is not
 * kept), and expired ones are swept at most once per `ttlMs`, so no client can pin memory by asking for pages nobody
 * else reads. Loads under way are shared by the requests that ask for the same key meanwhile.
 * @example const pages = createPageCache(clock, 1000); await pages.get('available:0:20', load)
 */
export function createPageCache(clock: Clock, ttlMs: number, maxBytes = PAGE_CACHE_BYTES): PageCache {
  const settled = new LRUCache<string, Settled>({ maxSize: maxBytes });
  const loading = new Map<string, Loading>();
  let generation = 0;
  let sweptAt = clock.now();

  /** Drops the expired results, at most once per `ttlMs`: memory held by pages nobody asks for again goes too. */
  function sweep(now: number) {
    if (now - sweptAt < ttlMs) return;
    sweptAt = now;
    const expired: string[] = [];
    for (const [key, entry] of settled.entries()) if (entry.expiresAt <= now) expired.push(key);
    for (const key of expired) settled.delete(key);
  }

  return {
    get<T>(key: string, load: () => Promise<T>): Promise<T> {
      if (ttlMs <= 0) return load();
      const now = clock.now();
      sweep(now);
      const cached = settled.get(key);
      if (cached && now < cached.expiresAt) return cached.value as Promise<T>;
      const shared = loading.get(key);
      if (shared) return shared.value as Promise<T>;
      const started = { generation, value: load() };
      loading.set(key, started);
      started.value.then(
        (value) => {
          if (loading.get(key) === started) loading.delete(key);
          if (started.generation !== generation || clock.now() >= now + ttlMs) return;
          // A page larger than the whole budget is refused by the cache itself (maxEntrySize defaults to maxSize).
          const size = ENTRY_OVERHEAD + key.length * 2 + approximateBytes(value);
          settled.set(key, { value: started.value, expiresAt: now + ttlMs }, { size });
        },
        () => {
          if (loading.get(key) === started) loading.delete(key);
        },
      );
      return started.value;
    },
    invalidate() {
      generation++;
      // Under a stream of writes the cache is mostly empty already, and lru-cache's clear() resets its arrays.
      if (settled.size > 0) settled.clear();
      if (loading.size > 0) loading.clear();
    },
    get bytes() {
      return settled.calculatedSize;
    },
  };
}
