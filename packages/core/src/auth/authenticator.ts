import { timingSafeEqual } from 'node:crypto';
import type { Clock } from '../clock.js';
import type { ApiKeyRecord, ApiKeyStore } from './api-key-store.js';
import { hashApiKey, isWellFormedApiKey } from './api-key-format.js';

/** Turns a bearer token into the key it names, or undefined for an unknown, revoked or malformed one. */
export interface Authenticator {
  verify(token: string): Promise<ApiKeyRecord | undefined>;
}

interface CacheEntry {
  at: number;
  record: Promise<(ApiKeyRecord & { hash: string }) | undefined>;
}

/**
 * Verifies tokens against the key store, caching each look-up for `cacheMs` (1 s by default), so a revocation
 * takes effect on every instance within that time. `last_used_at` is written at most once a minute per key.
 * @example const key = await createAuthenticator({ keys, clock }).verify('psk_…')
 */
export function createAuthenticator(options: { keys: ApiKeyStore; clock: Clock; cacheMs?: number }): Authenticator {
  const { keys, clock, cacheMs = 1000 } = options;
  const cache = new Map<string, CacheEntry>();
  const touched = new Map<number, number>();

  function lookUp(hash: string, now: number) {
    const hit = cache.get(hash);
    if (hit && now - hit.at < cacheMs) return hit.record;
    if (cache.size > 10_000) cache.clear();
    const record = keys.findByHash(hash);
    cache.set(hash, { at: now, record });
    record.catch(() => cache.delete(hash));
    return record;
  }

  return {
    async verify(token) {
      if (!isWellFormedApiKey(token)) return undefined;
      const now = clock.now();
      const hash = hashApiKey(token);
      const record = await lookUp(hash, now);
      if (!record || record.revokedAt) return undefined;
      if (!timingSafeEqual(Buffer.from(record.hash, 'hex'), Buffer.from(hash, 'hex'))) return undefined;
      if (now - (touched.get(record.id) ?? -Infinity) >= 60_000) {
        touched.set(record.id, now);
        keys.touch(record.id, new Date(now)).catch(() => touched.delete(record.id));
      }
      return record;
    },
  };
}
