import { timingSafeEqual } from 'node:crypto';
import type { Clock } from '../clock.js';
import { PetStoreError } from '../errors/pet-store-error.js';
import type { ApiKeyRecord, ApiKeyStore } from './api-key-store.js';
import { hashApiKey, isWellFormedApiKey } from './api-key-format.js';

/**
 * What a token names now: a usable key, or why not. `expired` covers a key past its own expiry and a rotated key
 * past its grace period (`replaced`).
 * @example const verdict = await authenticator.explain(token); if (verdict.status === 'expired') notify(verdict.at)
 */
export type KeyVerdict =
  | { status: 'valid'; key: ApiKeyRecord }
  | { status: 'malformed' | 'unknown' | 'revoked' }
  | { status: 'expired'; at: Date; replaced: boolean };

/** Turns a bearer token into the key it names, or undefined for an unknown, revoked, expired or malformed one. */
export interface Authenticator {
  verify(token: string): Promise<ApiKeyRecord | undefined>;
  /**
   * What `verify` answers for this token now, with the reason when it names no usable key. Shares `verify`'s
   * cache, so explaining a refusal just after it costs no look-up.
   * @example if (!(await authenticator.verify(token))) throw invalidApiKey(await authenticator.explain(token))
   */
  explain(token: string): Promise<KeyVerdict>;
  /**
   * The key this token named at its last look-up that succeeded, however long ago (while it is remembered): to count
   * a request that failed before its key could be verified (a 503 while the database is away) under the key it
   * came with, in the usage ledger. Never to admit a request: that is `verify`'s.
   * @example if (failed.status >= 500) usage.record(authenticator.lastKnown(token))
   */
  lastKnown(token: string): ApiKeyRecord | undefined;
}

/** A look-up's answer before the clock is applied: a key past its expiry is still `found`. */
type Found = { status: 'found'; key: ApiKeyRecord } | { status: 'malformed' | 'unknown' | 'revoked' };

const MALFORMED: KeyVerdict = Object.freeze({ status: 'malformed' });

interface CacheEntry {
  at: number;
  found: Promise<Found>;
  settled?: Found;
  /** The look-up failed: the next request looks up again. */
  failed?: boolean;
  /** The key of the latest look-up that succeeded before this one, for `lastKnown` while this one is pending or failed. */
  known?: ApiKeyRecord | undefined;
}

/** The key an entry knows: its own answer once settled, else the one it took over from the entry before it. */
const knownIn = (entry: CacheEntry | undefined) =>
  entry?.settled ? (entry.settled.status === 'found' ? entry.settled.key : undefined) : entry?.known;

function judge(found: Found, now: number): KeyVerdict {
  if (found.status !== 'found') return found;
  const { key } = found;
  if (key.expiresAt && key.expiresAt.getTime() <= now) {
    return { status: 'expired', at: key.expiresAt, replaced: key.replacedBy != null };
  }
  return { status: 'valid', key };
}

/**
 * The 401 `invalid_api_key` for a token that names no usable key: the usual message, or one saying the key
 * expired (and, for a rotated key, that its replacement is the key to use). Revoked and unknown keys read alike.
 * @example throw invalidApiKey({ status: 'expired', at: new Date('2027-01-01T00:00:00Z'), replaced: false })
 */
export function invalidApiKey(verdict: KeyVerdict): PetStoreError {
  if (verdict.status !== 'expired') return new PetStoreError('invalid_api_key');
  const at = verdict.at.toISOString().replace(/\.000Z$/, 'Z');
  return new PetStoreError(
    'invalid_api_key',
    verdict.replaced
      ? `The API key expired at ${at}, when the grace period of its rotation ended; use the key that replaced it.`
      : `The API key expired at ${at}.`,
  );
}

// Only well-formed tokens (at most 255 characters) are remembered, so the cache holds at most about 10 MB.
const MAX_ENTRIES = 10_000;

/**
 * Verifies tokens against the key store, remembering each answer for `cacheMs` (1 s by default), so a revocation
 * takes effect on every instance within that time while repeated requests pay neither a hash nor a look-up.
 * A token that is not shaped like a key is answered `malformed` without entering the cache (it costs no look-up
 * either), so no client can fill memory with tokens. `last_used_at` is written at most once a minute per key.
 * @example const key = await createAuthenticator({ keys, clock }).verify('psk_…')
 */
export function createAuthenticator(options: { keys: ApiKeyStore; clock: Clock; cacheMs?: number }): Authenticator {
  const { keys, clock, cacheMs = 1000 } = options;
  // Bounded by count (each entry a short token), emptied when full: an answer lives a second anyway, so a flood of
  // well-formed tokens costs a key one look-up more at most, and a plain Map costs the hot path least.
  const cache = new Map<string, CacheEntry>();
  const touched = new Map<number, number>();

  async function lookUp(token: string): Promise<Found> {
    const hash = hashApiKey(token);
    const record = await keys.findByHash(hash);
    if (!record || !timingSafeEqual(Buffer.from(record.hash, 'hex'), Buffer.from(hash, 'hex'))) {
      return { status: 'unknown' };
    }
    if (record.revokedAt) return { status: 'revoked' };
    const { hash: _hash, ...key } = record;
    return { status: 'found', key };
  }

  function touch(record: ApiKeyRecord, now: number) {
    if (now - (touched.get(record.id) ?? -Infinity) < 60_000) return;
    touched.set(record.id, now);
    keys.touch(record.id, new Date(now)).catch(() => touched.delete(record.id));
  }

  async function explain(token: string): Promise<KeyVerdict> {
    const now = clock.now();
    let entry = cache.get(token);
    if (!entry || entry.failed || now - entry.at >= cacheMs) {
      if (!isWellFormedApiKey(token)) return MALFORMED;
      if (cache.size >= MAX_ENTRIES) cache.clear();
      // What was known before stays known (`lastKnown`) however many look-ups overlap or fail after it.
      const fresh: CacheEntry = { at: now, found: lookUp(token), known: knownIn(entry) };
      fresh.found.then(
        (found) => (fresh.settled = found),
        // A failed look-up is not remembered as an answer: the next request looks up again.
        () => (fresh.failed = true),
      );
      cache.set(token, (entry = fresh));
    }
    return judge(entry.settled ?? (await entry.found), now);
  }

  return {
    async verify(token) {
      const verdict = await explain(token);
      if (verdict.status !== 'valid') return undefined;
      touch(verdict.key, clock.now());
      return verdict.key;
    },
    explain,
    lastKnown: (token) => knownIn(cache.get(token)),
  };
}
