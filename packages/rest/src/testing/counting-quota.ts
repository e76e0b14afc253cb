import { PetStoreError, type Clock, type Quota, type RateLimitWindow } from '@petstore/core';

/**
 * A quota of `limit` requests per fixed minute, per key and per address, for tests of the rate-limit headers.
 * @example createPetStore({ db, clock, quota: countingQuota(5, clock) })
 */
export function countingQuota(limit: number, clock: Clock): Quota {
  const used = new Map<string, number>();
  const consume = async (who: string): Promise<RateLimitWindow[]> => {
    const now = clock.now() / 1000;
    const windowStart = Math.floor(now / 60) * 60;
    const slot = `${who}@${windowStart}`;
    const count = (used.get(slot) ?? 0) + 1;
    used.set(slot, count);
    const resetIn = Math.max(1, Math.ceil(windowStart + 60 - now));
    const window: RateLimitWindow = {
      limit,
      remaining: Math.max(0, limit - count),
      resetAt: windowStart + 60,
      resetIn,
      seconds: 60,
      name: who.startsWith('address:') ? 'address' : 'minute',
    };
    if (count > limit) {
      throw new PetStoreError('rate_limited', undefined, { meta: { rateLimit: [window], retryAfter: resetIn } });
    }
    return [window];
  };
  return {
    consumeKey: (key) => consume(`key:${key.id}`),
    consumeAddress: (address) => consume(`address:${address}`),
  };
}
