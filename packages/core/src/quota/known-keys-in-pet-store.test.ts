import { randomBytes } from 'node:crypto';
import { openDatabase, type OpenDatabase } from '@petstore/testing';
import { openTestRedis, redisUrl, refusal, testDatabases, type TestDatabase } from '@petstore/testing';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPetStore, createQuota, type ClosableQuota, type Clock, type PetStore, type ResponseMeta } from '../index.js';

// The address rule of DECISIONS "Gaps in limits" on each quota store, through the pet store: the memory store on
// PGlite, the table on PostgreSQL, Redis. Two instances share the database and, for the shared stores, the counters.
const postgres = testDatabases.find((database) => database.name === 'postgres');
const setups: { name: string; database: TestDatabase; store: 'memory' | 'postgres' | 'redis' }[] = [
  { name: 'memory', database: testDatabases[0]!, store: 'memory' },
  ...(postgres ? [{ name: 'postgres', database: postgres, store: 'postgres' as const }] : []),
  ...(postgres && redisUrl ? [{ name: 'redis', database: postgres, store: 'redis' as const }] : []),
];

const PER_ADDRESS = 5;
const DAY = 86_400_000;

describe.each(setups)('keys known at an address, on the $name store', ({ database, store }) => {
  const clock: Clock & { at: number } = { at: Date.parse('2026-11-21T12:00:15.200Z'), now: () => clock.at };
  const nextMinute = () => (clock.at = (Math.floor(clock.at / 60_000) + 1) * 60_000 + 15_200);
  let first: PetStore;
  let second: PetStore | undefined;
  let close: () => Promise<void>;
  let addresses = 0;
  // Each in a /64 of its own: IPv6 clients are counted by their /64.
  const freshAddress = () => `2001:db8:${(++addresses).toString(16)}::1`;

  const quotas: ClosableQuota[] = [];
  beforeAll(async () => {
    const opened = await database.open();
    const closers: (() => Promise<void>)[] = [];
    const keyPrefix = `petstore_known_${randomBytes(6).toString('hex')}`;
    const instance = async (db: OpenDatabase) => {
      const options = { perAddressPerMinute: PER_ADDRESS };
      let quota: ClosableQuota;
      if (store === 'memory') quota = createQuota({ store, clock }, options);
      else if (store === 'postgres') quota = createQuota({ store, pool: db.pool!, clock }, options);
      else {
        const redis = await openTestRedis(keyPrefix);
        closers.push(redis.close);
        quota = createQuota({ store, client: redis.client, keyPrefix, clock }, options);
      }
      quotas.push(quota);
      closers.unshift(() => quota.close());
      return createPetStore({ db: db.db, clock, quota });
    };
    first = await instance(opened);
    if (store !== 'memory') {
      // Another instance: its own pool (and Redis client) on the same database and counters.
      const other = await openDatabase({ databaseUrl: opened.url! });
      closers.push(() => other.close());
      second = await instance(other);
    }
    close = async () => {
      for (const closer of closers) await closer();
      await opened.close();
    };
  });
  afterAll(() => close());

  const day = (meta: ResponseMeta) => meta.rateLimit?.find((window) => window.name === 'day')?.remaining;
  /** Made-up keys from `address` until it is over its limit; answers the refusal of the last one. */
  const flood = async (address: string, through = first) => {
    for (let i = 0; i < PER_ADDRESS; i++) {
      const wrong = await refusal(through.listPets({}, { apiKey: `made-up-key-${i}-0000000000`, clientAddress: address }));
      expect(wrong.code).toBe('invalid_api_key');
    }
    const guess = await refusal(through.listPets({}, { apiKey: 'made-up-key-last-000000000', clientAddress: address }));
    expect(guess.code).toBe('rate_limited');
    return guess;
  };

  it('serves a key that succeeded from the address while made-up keys hold it over the limit, and charges no refusal', async () => {
    nextMinute();
    const address = freshAddress();
    const { key } = await first.apiKeys.create({ plan: 'pro' });
    expect(day((await first.listPets({ limit: 1 }, { apiKey: key, clientAddress: address })).meta)).toBe(9_999);
    await flood(address);
    for (let i = 0; i < 3; i++) {
      const served = await first.listPets({ limit: 1 }, { apiKey: key, clientAddress: address });
      expect(day(served.meta)).toBe(9_998 - i);
    }
  });

  it('refuses a valid key never seen from the address exactly like a wrong one, and does not charge it', async () => {
    nextMinute();
    const address = freshAddress();
    const { key } = await first.apiKeys.create({ plan: 'pro' });
    const guess = await flood(address);
    const right = await refusal(first.listPets({}, { apiKey: key, clientAddress: address }));
    expect(right.toBody()).toEqual(guess.toBody());
    expect(right.meta.rateLimit).toEqual(guess.meta.rateLimit);
    expect(right.meta.retryAfter).toEqual(guess.meta.retryAfter);
    expect(day((await first.listPets({}, { apiKey: key, clientAddress: freshAddress() })).meta)).toBe(9_999);
  });

  it('takes only an answer without error as a success: refused input or a missing pet is not one', async () => {
    nextMinute();
    const address = freshAddress();
    const { key } = await first.apiKeys.create({ plan: 'pro' });
    expect((await refusal(first.listPets({ limit: 0 }, { apiKey: key, clientAddress: address }))).status).toBe(400);
    expect((await refusal(first.getPet({ petId: 999_999 }, { apiKey: key, clientAddress: address }))).status).toBe(404);
    await first.meter({ apiKey: key, clientAddress: address });
    await flood(address);
    expect((await refusal(first.listPets({}, { apiKey: key, clientAddress: address }))).code).toBe('rate_limited');
  });

  it('knows a key for 24 hours after its last success from the address, and not after', async () => {
    nextMinute();
    const address = freshAddress();
    const [kept, forgotten] = await Promise.all([first.apiKeys.create({ plan: 'pro' }), first.apiKeys.create({ plan: 'pro' })]);
    const start = clock.at;
    await first.listPets({}, { apiKey: kept.key, clientAddress: address });
    await first.listPets({}, { apiKey: forgotten.key, clientAddress: address });
    clock.at = start + DAY - 60_000;
    await flood(address);
    await expect(first.listPets({}, { apiKey: kept.key, clientAddress: address })).resolves.toBeDefined();
    clock.at = start + DAY + 2 * 60_000;
    await flood(address);
    expect((await refusal(first.listPets({}, { apiKey: forgotten.key, clientAddress: address }))).code).toBe('rate_limited');
  });

  it.runIf(store !== 'memory')('serves the key on another instance that never saw it succeed', async () => {
    nextMinute();
    const address = freshAddress();
    const { key } = await first.apiKeys.create({ plan: 'pro' });
    const { key: stranger } = await first.apiKeys.create({ plan: 'pro' });
    await first.listPets({}, { apiKey: key, clientAddress: address });
    const guess = await flood(address, second);
    const served = await second!.listPets({}, { apiKey: key, clientAddress: address });
    expect(day(served.meta)).toBe(9_998);
    const right = await refusal(second!.listPets({}, { apiKey: stranger, clientAddress: address }));
    expect(right.toBody()).toEqual(guess.toBody());
  });

  it('never refuses a key for the address after its first success from it, whatever made-up keys come between', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.boolean(), { minLength: 1, maxLength: 4 * PER_ADDRESS }), async (fromKey) => {
        nextMinute();
        const address = freshAddress();
        const { key } = await first.apiKeys.create({ plan: 'pro' });
        let madeUp = 0;
        let succeeded = 0;
        for (const [i, valid] of fromKey.entries()) {
          const through = second && i % 2 ? second : first;
          const context = { apiKey: valid ? key : `made-up-key-${i}-0000000000`, clientAddress: address };
          const answer = await through.listPets({ limit: 1 }, context).then(
            (outcome) => ({ ok: true as const, meta: outcome.meta }),
            (error: { code: string }) => ({ ok: false as const, code: error.code }),
          );
          const overLimit = madeUp >= PER_ADDRESS;
          if (!valid) {
            madeUp++;
            expect(answer).toEqual({ ok: false, code: overLimit ? 'rate_limited' : 'invalid_api_key' });
          } else if (succeeded > 0 || !overLimit) {
            expect(answer.ok).toBe(true);
            expect(day((answer as { meta: ResponseMeta }).meta)).toBe(10_000 - ++succeeded);
            // Another instance learns of the success once it is written behind the answer.
            await Promise.all(quotas.map((quota) => quota.flush()));
          } else {
            expect(answer).toEqual({ ok: false, code: 'rate_limited' });
          }
        }
      }),
      { numRuns: 30, seed: 20261124 },
    );
  });
});
