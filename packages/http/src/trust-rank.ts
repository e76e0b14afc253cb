import { isWellFormedApiKey, plans, type ResponseMeta } from '@petstore/core';

/** The highest rank: the plans with the most requests a minute (business, enterprise). */
export const TOP_RANK = 3;

// The plans' limits a minute, low to high: a key's rank is 1 + how many of them its own limit is above.
const LIMITS = [...new Set(Object.values(plans).map((limits) => limits.perMinute))].sort((a, b) => a - b);
// As the authenticator's cache: bounded by count, emptied when full (only keys that were served enter it).
const MAX_ENTRIES = 10_000;

/** What a caller has earned at the edge, from its headers alone, for shedding (see createOverloadGuard). */
export interface TrustRanks {
  /** 0 without a key-shaped token; 1 for a key not seen served yet (or on the lowest plan); up to {@link TOP_RANK}. */
  rankOf(token: string | undefined): number;
  /** Learns a key's rank from the meta of an answer it was served (its minute window's limit). */
  learn(token: string | undefined, meta: ResponseMeta): void;
}

/**
 * The ranks of the keys this process has served, so that shedding, which runs on headers before any look-up, sheds
 * requests without a key first, then the lowest plans (DECISIONS "Hostile clients and overload").
 * @example const ranks = createTrustRanks(); ranks.learn(token, outcome.meta); ranks.rankOf(token) // 3 for enterprise
 */
export function createTrustRanks(): TrustRanks {
  const ranks = new Map<string, number>();
  return {
    rankOf(token) {
      if (token === undefined) return 0;
      // A key served before is known without its checksum (a hash) being computed again.
      return ranks.get(token) ?? (isWellFormedApiKey(token) ? 1 : 0);
    },
    learn(token, meta) {
      if (token === undefined || meta.keyId === undefined) return;
      const limit = meta.rateLimit?.find((window) => window.name === 'minute')?.limit;
      if (limit === undefined) return;
      let rank = 1;
      for (const planLimit of LIMITS) if (limit > planLimit && rank < TOP_RANK) rank += 1;
      if (ranks.get(token) === rank) return;
      if (ranks.size >= MAX_ENTRIES) ranks.clear();
      ranks.set(token, rank);
    },
  };
}
