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
  record: Promise<ApiKeyRecord | undefined>;
  settled?: ApiKeyRecord | undefined;
}

const MAX_ENTRIES = 10_000;

/**
 * Verifies tokens against the key store, remembering each answer for `cacheMs` (1 s by default), so a revocation
 * takes effect on every instance within that time while repeated requests pay neither a hash nor a look-up.
 * `last_used_at` is written at most once a minute per key.
 * @example const key = await createAuthenticator({ keys, clock }).verify('psk_…')
 */
export function createAuthenticator(options: { keys: ApiKeyStore; clock: Clock; cacheMs?: number }): Authenticator {
  const { keys, clock, cacheMs = 1000 } = options;
  const cache = new Map<string, CacheEntry>();
  const touched = new Map<number, number>();

  async function lookUp(token: string): Promise<ApiKeyRecord | undefined> {
    if (!isWellFormedApiKey(token)) return undefined;
    const hash = hashApiKey(token);
    const record = await keys.findByHash(hash);
    if (!record || record.revokedAt) return undefined;
    return timingSafeEqual(Buffer.from(record.hash, 'hex'), Buffer.from(hash, 'hex')) ? record : undefined;
  }

  function touch(record: ApiKeyRecord, now: number) {
    if (now - (touched.get(record.id) ?? -Infinity) < 60_000) return;
    touched.set(record.id, now);
    keys.touch(record.id, new Date(now)).catch(() => touched.delete(record.id));
  }

  return {
    async verify(token) {
      const now = clock.now();
      let entry = cache.get(token);
      if (!entry || now - entry.at >= cacheMs) {
        if (cache.size >= MAX_ENTRIES) cache.clear();
        const fresh: CacheEntry = { at: now, record: lookUp(token) };
        fresh.record.then(
          (record) => (fresh.settled = record),
          () => cache.get(token) === fresh && cache.delete(token),
        );
        cache.set(token, (entry = fresh));
      }
      const record = entry.settled ?? (await entry.record);
      if (record) touch(record, now);
      return record;
    },
  };
}
