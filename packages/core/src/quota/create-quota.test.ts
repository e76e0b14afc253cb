import { databaseUrl, openTestRedis, redisUrl, refusal, testDatabases } from '@petstore/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  createQuota,
  PetStoreError,
  plans,
  type ApiKeyRecord,
  type Clock,
  type ClosableQuota,
  type Limits,
  type PlanName,
  type QuotaOptions,
  type QuotaStore,
} from '../index.js';

type StoreConfig =
  | { store: 'memory'; keep?: Extract<QuotaStore, { store: 'memory' }>['keep'] }
  | { store: 'postgres'; pool: Extract<QuotaStore, { store: 'postgres' }>['pool'] }
  | { store: 'redis'; client: Extract<QuotaStore, { store: 'redis' }>['client']; keyPrefix: string };

const stores: { name: string; open(): Promise<{ config: StoreConfig; close(): Promise<void> }> }[] = [
  { name: 'memory', open: async () => ({ config: { store: 'memory' }, close: async () => {} }) },
  {
    // The embedded database's default: in memory, kept in its table across restarts.
    name: 'memory kept in the embedded database',
    async open() {
      const database = await testDatabases.find((d) => d.name === 'pglite')!.open();
      return { config: { store: 'memory' as const, keep: { db: database.db } }, close: database.close };
    },
  },
  ...(databaseUrl
    ? [
        {
          name: 'postgres',
          async open() {
            const database = await testDatabases.find((d) => d.name === 'postgres')!.open();
            return { config: { store: 'postgres' as const, pool: database.pool! }, close: database.close };
          },
        },
      ]
    : []),
  ...(redisUrl
    ? [
        {
          name: 'redis',
          async open() {
            const { client, keyPrefix, close } = await openTestRedis();
            return { config: { store: 'redis' as const, client, keyPrefix }, close };
          },
        },
      ]
    : []),
];

const at = (iso: string) => Date.parse(iso);
const unix = (iso: string) => Date.parse(iso) / 1000;

describe.each(stores)('the quota in $name', (backend) => {
  let config: StoreConfig;
  let close: () => Promise<void>;
  const quotas: ClosableQuota[] = [];
  let lastId = 0;

  beforeAll(async () => {
    ({ config, close } = await backend.open());
  });
  afterEach(async () => {
    await Promise.all(quotas.splice(0).map((q) => q.close()));
  });
  afterAll(() => close());

  function setUp(start: string, options?: QuotaOptions) {
    const clock: Clock & { at: number } = { at: at(start), now: () => clock.at };
    const quota = createQuota({ ...config, clock }, options);
    quotas.push(quota);
    return { clock, quota };
  }

  function keyOn(plan: PlanName, limits: Limits = plans[plan]): ApiKeyRecord {
    return { id: ++lastId, label: null, plan, limits, createdAt: new Date(0), lastUsedAt: null, revokedAt: null };
  }

  const many = <T>(n: number, request: () => Promise<T>) => Promise.all(Array.from({ length: n }, request));

  it('allows 60 requests a minute on a free key and refuses the 61st with Retry-After to the end of the minute', async () => {
    const { quota } = setUp('2026-11-21T12:00:15.200Z');
    const key = keyOn('free');
    const first = await quota.consumeKey(key);
    expect(first).toEqual([
      { name: 'minute', limit: 60, remaining: 59, resetAt: unix('2026-11-21T12:01:00Z'), resetIn: 45, seconds: 60 },
      {
        name: 'day',
        limit: 1000,
        remaining: 999,
        resetAt: unix('2026-11-22T00:00:00Z'),
        resetIn: 43_185,
        seconds: 86_400,
      },
    ]);
    await many(59, () => quota.consumeKey(key));
    const error = await refusal(quota.consumeKey(key));
    expect(error.code).toBe('rate_limited');
    expect(error.status).toBe(429);
    expect(error.meta.retryAfter).toBe(45);
    expect(error.meta.rateLimit?.[0]).toMatchObject({ name: 'minute', limit: 60, remaining: 0, resetIn: 45 });
    expect(error.meta.rateLimit?.[1]).toMatchObject({ name: 'day', remaining: 940 });
  });

  it('opens a fresh minute window at the start of the next minute', async () => {
    const { clock, quota } = setUp('2026-11-21T12:00:15.200Z');
    const key = keyOn('free');
    await many(60, () => quota.consumeKey(key));
    clock.at = at('2026-11-21T12:00:59.999Z');
    expect((await refusal(quota.consumeKey(key))).meta.retryAfter).toBe(1);
    clock.at = at('2026-11-21T12:01:00.000Z');
    const windows = await quota.consumeKey(key);
    expect(windows[0]).toMatchObject({
      name: 'minute',
      remaining: 59,
      resetAt: unix('2026-11-21T12:02:00Z'),
      resetIn: 60,
    });
    expect(windows[1]).toMatchObject({ name: 'day', remaining: 939 });
  });

  it('allows 1000 requests a day on a free key across minutes, then refuses until 00:00 UTC', async () => {
    const { clock, quota } = setUp('2026-11-21T22:00:00Z');
    const key = keyOn('free');
    for (let minute = 0; minute < 20; minute++) {
      clock.at = at('2026-11-21T22:00:00Z') + minute * 60_000;
      await many(50, () => quota.consumeKey(key));
    }
    clock.at = at('2026-11-21T22:30:10.5Z');
    const error = await refusal(quota.consumeKey(key));
    expect(error.code).toBe('rate_limited');
    expect(error.meta.retryAfter).toBe(5390);
    expect(error.meta.rateLimit?.[0]).toMatchObject({
      name: 'day',
      limit: 1000,
      remaining: 0,
      resetAt: unix('2026-11-22T00:00:00Z'),
    });
    clock.at = at('2026-11-21T23:59:59.5Z');
    expect((await refusal(quota.consumeKey(key))).meta.retryAfter).toBe(1);
    clock.at = at('2026-11-22T00:00:00Z');
    const windows = await quota.consumeKey(key);
    expect(windows[0]).toMatchObject({ name: 'minute', remaining: 59 });
    expect(windows[1]).toMatchObject({
      name: 'day',
      remaining: 999,
      resetAt: unix('2026-11-23T00:00:00Z'),
      resetIn: 86_400,
    });
  });

  it('does not count requests refused by the minute window against the day', async () => {
    const { clock, quota } = setUp('2026-11-21T12:00:00Z');
    const key = keyOn('free');
    await many(60, () => quota.consumeKey(key));
    for (let i = 0; i < 10; i++) {
      const error = await refusal(quota.consumeKey(key));
      expect(error.code).toBe('rate_limited');
      expect(error.meta.rateLimit?.find((w) => w.name === 'day')?.remaining).toBe(940);
    }
    clock.at += 60_000;
    expect((await quota.consumeKey(key))[1]).toMatchObject({ name: 'day', remaining: 939 });
  });

  it('puts the window with fewer requests left first, and the minute on a tie', async () => {
    const { clock, quota } = setUp('2026-11-21T12:00:00Z');
    const key = keyOn('enterprise', { perMinute: 10, perDay: 15 });
    await many(4, () => quota.consumeKey(key));
    expect((await quota.consumeKey(key)).map((w) => [w.name, w.remaining])).toEqual([
      ['minute', 5],
      ['day', 10],
    ]);
    clock.at += 60_000;
    await many(4, () => quota.consumeKey(key));
    expect((await quota.consumeKey(key)).map((w) => [w.name, w.remaining])).toEqual([
      ['minute', 5],
      ['day', 5],
    ]);
    clock.at += 60_000;
    expect((await quota.consumeKey(key)).map((w) => [w.name, w.remaining])).toEqual([
      ['day', 4],
      ['minute', 9],
    ]);
  });

  it('applies the limits set on an enterprise key', async () => {
    const { clock, quota } = setUp('2026-11-21T12:00:00Z');
    const key = keyOn('enterprise', { perMinute: 5, perDay: 7 });
    await many(5, () => quota.consumeKey(key));
    const minuteRefusal = await refusal(quota.consumeKey(key));
    expect(minuteRefusal.meta).toMatchObject({
      retryAfter: 60,
      rateLimit: [
        { name: 'minute', limit: 5, remaining: 0 },
        { name: 'day', limit: 7, remaining: 2 },
      ],
    });
    clock.at = at('2026-11-21T12:01:30Z');
    await many(2, () => quota.consumeKey(key));
    const dayRefusal = await refusal(quota.consumeKey(key));
    expect(dayRefusal.code).toBe('rate_limited');
    expect(dayRefusal.meta.retryAfter).toBe(43_110);
    expect(dayRefusal.meta.rateLimit).toMatchObject([
      { name: 'day', limit: 7, remaining: 0 },
      { name: 'minute', limit: 5, remaining: 2 },
    ]);
  });

  it('applies the pro and business plan limits', async () => {
    const { clock, quota } = setUp('2026-11-21T12:00:00Z');
    for (const [plan, perMinute, perDay] of [
      ['pro', 300, 10_000],
      ['business', 1000, 100_000],
    ] as const) {
      const key = keyOn(plan);
      const last = (await many(perMinute, () => quota.consumeKey(key))).flat();
      expect(last.filter((w) => w.name === 'minute' && w.remaining === 0)).toHaveLength(1);
      const error = await refusal(quota.consumeKey(key));
      expect(error.code).toBe('rate_limited');
      expect(error.meta.rateLimit).toMatchObject([
        { name: 'minute', limit: perMinute, remaining: 0 },
        { name: 'day', limit: perDay, remaining: perDay - perMinute },
      ]);
      clock.at += 60_000;
    }
  });

  it('bans a key that makes 10 more requests after its refusal in one minute, for 15 minutes', async () => {
    const { clock, quota } = setUp('2026-11-21T12:00:15.200Z');
    const key = keyOn('free');
    await many(60, () => quota.consumeKey(key));
    for (let i = 61; i <= 70; i++) expect((await refusal(quota.consumeKey(key))).code).toBe('rate_limited');
    const ban = await refusal(quota.consumeKey(key));
    expect(ban.code).toBe('api_key_banned');
    expect(ban.status).toBe(429);
    expect(ban.meta.retryAfter).toBe(900);
    expect(ban.meta.rateLimit?.map((w) => w.name)).toEqual(['minute', 'day']);

    clock.at = at('2026-11-21T12:01:00Z');
    const still = await refusal(quota.consumeKey(key));
    expect(still.code).toBe('api_key_banned');
    expect(still.meta.retryAfter).toBe(855);
    expect(still.meta.rateLimit?.[0]).toMatchObject({ name: 'minute', remaining: 59 });
    clock.at = at('2026-11-21T12:15:14.900Z');
    expect((await refusal(quota.consumeKey(key))).meta.retryAfter).toBe(1);
    clock.at = at('2026-11-21T12:15:15Z');
    expect((await quota.consumeKey(key))[0]).toMatchObject({ name: 'minute', remaining: 58 });
  });

  it('takes the ban threshold and length from its options', async () => {
    const { clock, quota } = setUp('2026-11-21T12:00:00Z', { banThreshold: 2, banSeconds: 30 });
    const key = keyOn('enterprise', { perMinute: 3, perDay: 100 });
    await many(3, () => quota.consumeKey(key));
    expect((await refusal(quota.consumeKey(key))).code).toBe('rate_limited');
    expect((await refusal(quota.consumeKey(key))).code).toBe('rate_limited');
    const ban = await refusal(quota.consumeKey(key));
    expect(ban.code).toBe('api_key_banned');
    expect(ban.meta.retryAfter).toBe(30);
    clock.at = at('2026-11-21T12:01:00Z');
    await expect(quota.consumeKey(key)).resolves.toHaveLength(2);
  });

  it('refuses requests from one address over 60 a minute, counting each address apart', async () => {
    const { clock, quota } = setUp('2026-11-21T12:00:20Z');
    const first = await quota.consumeAddress('203.0.113.5');
    expect(first).toEqual([
      { name: 'address', limit: 60, remaining: 59, resetAt: unix('2026-11-21T12:01:00Z'), resetIn: 40, seconds: 60 },
    ]);
    await many(59, () => quota.consumeAddress('203.0.113.5'));
    for (let i = 0; i < 20; i++) {
      const error = await refusal(quota.consumeAddress('203.0.113.5'));
      expect(error.code).toBe('rate_limited');
      expect(error.meta).toMatchObject({ retryAfter: 40, rateLimit: [{ name: 'address', remaining: 0 }] });
    }
    expect(await quota.consumeAddress('2001:db8::1')).toMatchObject([{ name: 'address', remaining: 59 }]);
    clock.at = at('2026-11-21T12:01:00Z');
    expect(await quota.consumeAddress('203.0.113.5')).toMatchObject([{ name: 'address', remaining: 59 }]);
  });

  it('takes the per-address limit from its options and accepts an address of any length', async () => {
    const { quota } = setUp('2026-11-21T12:00:00Z', { perAddressPerMinute: 2 });
    const address = 'x'.repeat(1000);
    await many(2, () => quota.consumeAddress(address));
    expect((await refusal(quota.consumeAddress(address))).meta.rateLimit).toMatchObject([{ limit: 2, remaining: 0 }]);
    expect(await quota.consumeAddress('y'.repeat(1000))).toMatchObject([{ limit: 2, remaining: 1 }]);
  });

  it('lets exactly 60 of 75 concurrent requests on a fresh free key through', async () => {
    const { quota } = setUp('2026-11-21T12:00:00Z');
    const key = keyOn('free');
    const results = await Promise.allSettled(Array.from({ length: 75 }, () => quota.consumeKey(key)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(60);
    const codes = results.flatMap((r) => (r.status === 'rejected' ? [(r.reason as PetStoreError).code] : []));
    expect(new Set(codes)).toEqual(new Set(['rate_limited', 'api_key_banned']));
  });

  it('refuses options that are not whole numbers in range', () => {
    expect(() => createQuota({ store: 'memory' }, { banSeconds: 0 })).toThrow(RangeError);
    expect(() => createQuota({ store: 'memory' }, { banThreshold: 1.5 })).toThrow(RangeError);
    expect(() => createQuota({ store: 'memory' }, { banSeconds: 8 * 86_400 })).toThrow(RangeError);
  });
});
