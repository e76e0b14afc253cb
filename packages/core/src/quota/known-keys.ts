import { createHash } from 'node:crypto';
import type { Clock } from '../clock.js';
import type { Counters } from './counters.js';
import { fromStoredSeconds, storedSecondsAfter } from './stored-time.js';
import { DAY_MS } from './windows.js';

/** The length of a {@link tokenDigest}. */
const DIGEST_LENGTH = 22;

/**
 * The name of a key among the known ones: a digest of its token (128 bits, apart from the key store's hash), so that
 * whether a token is known at an address is answered without looking the token up.
 * @example tokenDigest('psk_…') // 'Qm9vWWf3…' (22 characters)
 */
export function tokenDigest(token: string): string {
  return createHash('sha256').update('petstore known key\0').update(token).digest('base64url').slice(0, DIGEST_LENGTH);
}

/** How long a key stays known at an address after it succeeded from there (DECISIONS "Gaps in limits"). */
export const KNOWN_KEY_MS = DAY_MS;
// An instance writes a pair at its first success and then at most once a minute, so a busy key costs the store one
// write a minute, not one per request. What another instance reads may thus be up to a minute older than the last
// success; it takes the pair as seen a minute after the time read. A key stays known on every instance for at least
// 24 hours after its last success from the address, and at most a minute longer.
const REWRITE_MS = 60_000;
// How long a look-up in the store is trusted before the store is asked again (for a pair not known, or stale).
const RECHECK_MS = 1_000;
// The entry outlives the memory by a margin, as bans do: the store expires entries on its own clock, while whether a
// pair is still known is judged by the injected clock from the time stored in it.
const ENTRY_SECONDS = (KNOWN_KEY_MS + REWRITE_MS) / 1000 + 3_600;
// Pairs this instance keeps in memory; all are forgotten when there are more (they stay in the store).
const MAX_PAIRS = 100_000;
// Where the store reads the keys known at an address as one set: at most this many (more, and each token is looked up
// on its own, at most once a second), for at most this many addresses at once (all forgotten when there are more).
const MAX_KNOWN_AT_ADDRESS = 64;
const MAX_ADDRESSES = 10_000;

/** An address whose known keys were read as one set: when, whether they were all there, and the read under way. */
interface AddressRead {
  readAt: number;
  whole: boolean;
  reading: Promise<void> | undefined;
}

interface Pair {
  /** The latest success known here, in epoch ms: this instance's own exactly, the store's a minute later. */
  seen: number;
  /** When this instance last sent the pair to the store. */
  written: number;
  /** When this instance last read the pair from the store. */
  readAt: number;
}

/**
 * Which keys have succeeded from which client addresses lately, shared by every instance on the store. A key is named
 * by a digest of its token (see `tokenDigest`), so a request from an address over its limit is judged without looking
 * its token up in the key store.
 * @example const known = createKnownKeys(counters, clock); known.record(digest, '203.0.113.5'); await known.has(digest, '203.0.113.5') // true
 */
export interface KnownKeys {
  /** Remembers that the key of `digest` succeeded from `address` now; written behind, so it never waits and never fails. */
  record(digest: string, address: string): void;
  /**
   * Whether the key of `digest` succeeded from `address` in the last {@link KNOWN_KEY_MS}, here or on another
   * instance. Answers from memory when it can; otherwise reads the store, at most once a second per pair.
   */
  has(digest: string, address: string): Promise<boolean>;
  /** Settles when the writes under way have. */
  flush(): Promise<void>;
}

/**
 * Known keys kept in `counters` (the quota's store, each pair an entry holding its latest success), with the pairs
 * this instance has seen in memory.
 * @example const known = createKnownKeys(coalesced(createRedisCounters(client)), systemClock)
 */
export function createKnownKeys(counters: Counters, clock: Clock): KnownKeys {
  // By digest, then address: a request finds its pair without building the store entry's name (a string made per
  // request costs more as a map key than the look-up itself). Emptied when full; the store keeps every pair.
  let pairs = new Map<string, Map<string, Pair>>();
  let count = 0;
  const writing = new Set<Promise<void>>();

  const entryOf = (digest: string, address: string) => `k:${digest}:${address}`;
  const pairOf = (digest: string, address: string): Pair => {
    let ofDigest = pairs.get(digest);
    let pair = ofDigest?.get(address);
    if (!pair) {
      if (count >= MAX_PAIRS) {
        pairs = new Map();
        count = 0;
        ofDigest = undefined;
      }
      if (!ofDigest) pairs.set(digest, (ofDigest = new Map()));
      ofDigest.set(address, (pair = { seen: -Infinity, written: -Infinity, readAt: -Infinity }));
      count += 1;
    }
    return pair;
  };

  function record(digest: string, address: string) {
    const now = clock.now();
    const pair = pairOf(digest, address);
    pair.seen = Math.max(pair.seen, now);
    if (now - pair.written < REWRITE_MS) return;
    pair.written = now;
    const write: Promise<void> = counters
      .write(entryOf(digest, address), storedSecondsAfter(now), ENTRY_SECONDS)
      .catch(() => {
        // The answer has gone out already; the pair's next success writes again.
        if (pair.written === now) pair.written = -Infinity;
      })
      .finally(() => writing.delete(write));
    writing.add(write);
  }

  // Where the store can answer them as one set (PostgreSQL), the keys known at each address, read at most once a
  // second per address: a refused address's unknown tokens then cost no look-up each, however many they are.
  const readKnownAt = counters.readKnownAt?.bind(counters);
  let addresses = new Map<string, AddressRead>();

  /** Whether every key known at `address` is in memory now (read as one set within the last second). */
  async function wholeAt(address: string, now: number): Promise<boolean> {
    let read = addresses.get(address);
    if (!read || (read.reading === undefined && now - read.readAt >= RECHECK_MS)) {
      if (!read && addresses.size >= MAX_ADDRESSES) addresses = new Map();
      const fresh: AddressRead = { readAt: now, whole: false, reading: undefined };
      fresh.reading = readKnownAt!(address, MAX_KNOWN_AT_ADDRESS).then(
        (entries) => {
          fresh.reading = undefined;
          fresh.whole = entries !== undefined;
          for (const [entry, stored] of entries ?? []) {
            const pair = pairOf(entry.slice(2, 2 + DIGEST_LENGTH), address);
            pair.readAt = now;
            pair.seen = Math.max(pair.seen, fromStoredSeconds(stored) + REWRITE_MS);
          }
        },
        (error: unknown) => {
          if (addresses.get(address) === fresh) addresses.delete(address);
          throw error;
        },
      );
      addresses.set(address, (read = fresh));
    }
    if (read.reading) await read.reading;
    return read.whole;
  }

  async function has(digest: string, address: string): Promise<boolean> {
    const now = clock.now();
    const known = pairs.get(digest)?.get(address);
    if (known && now - known.seen < KNOWN_KEY_MS) return true;
    if (known && now - known.readAt < RECHECK_MS) return false;
    if (readKnownAt && (await wholeAt(address, now))) {
      const pair = pairs.get(digest)?.get(address);
      return pair !== undefined && now - pair.seen < KNOWN_KEY_MS;
    }
    const stored = await counters.read(entryOf(digest, address));
    const pair = pairOf(digest, address);
    pair.readAt = now;
    if (stored !== undefined) pair.seen = Math.max(pair.seen, fromStoredSeconds(stored) + REWRITE_MS);
    return now - pair.seen < KNOWN_KEY_MS;
  }

  return Object.freeze({
    record,
    has,
    async flush() {
      await Promise.all(writing);
    },
  });
}
