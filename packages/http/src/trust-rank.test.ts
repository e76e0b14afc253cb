import { generateApiKey, plans, type RateLimitWindow } from '@petstore/core';
import { describe, expect, it } from 'vitest';
import { createTrustRanks, TOP_RANK } from './trust-rank.js';

const served = (perMinute: number) => ({
  keyId: 7,
  rateLimit: [{ name: 'minute', limit: perMinute } as RateLimitWindow],
});

describe('trust ranks', () => {
  it('rank a key by the plan its answers showed: free 1, pro 2, business and enterprise the top', () => {
    const ranks = createTrustRanks();
    const expected = { free: 1, pro: 2, business: TOP_RANK, enterprise: TOP_RANK } as const;
    for (const [plan, rank] of Object.entries(expected)) {
      const token = generateApiKey();
      expect(ranks.rankOf(token)).toBe(1);
      ranks.learn(token, served(plans[plan as keyof typeof plans].perMinute));
      expect(ranks.rankOf(token)).toBe(rank);
    }
    // A key's own limits: below every plan is the lowest rank, above every plan the top (never past it).
    const small = generateApiKey();
    ranks.learn(small, served(2));
    expect(ranks.rankOf(small)).toBe(1);
    const huge = generateApiKey();
    ranks.learn(huge, served(2_000_000_000));
    expect(ranks.rankOf(huge)).toBe(TOP_RANK);
  });

  it('give nothing without a key-shaped token, and learn nothing from an answer without a key', () => {
    const ranks = createTrustRanks();
    expect(ranks.rankOf(undefined)).toBe(0);
    expect(ranks.rankOf('not a key')).toBe(0);
    const token = generateApiKey();
    ranks.learn(token, { rateLimit: served(1_000).rateLimit });
    expect(ranks.rankOf(token)).toBe(1);
  });
});
