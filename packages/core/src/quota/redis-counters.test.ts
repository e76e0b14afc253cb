import { openTestRedis, redisUrl, refusal, startRedisServer } from '@petstore/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createQuota, plans, unavailableDependency, type ApiKeyRecord, type Clock } from '../index.js';

const clock: Clock = { now: () => Date.parse('2026-11-21T12:00:00Z') };
const freeKey = (id: number): ApiKeyRecord => ({
  id,
  label: null,
  plan: 'free',
  limits: plans.free,
  createdAt: new Date(0),
  lastUsedAt: null,
  revokedAt: null,
});

describe.skipIf(!redisUrl)('the quota on Redis', () => {
  let first: Awaited<ReturnType<typeof openTestRedis>>;
  let second: Awaited<ReturnType<typeof openTestRedis>>;

  beforeAll(async () => {
    first = await openTestRedis();
    second = await openTestRedis(first.keyPrefix);
  });
  afterAll(async () => {
    second?.client.disconnect();
    await first?.close();
  });

  it('lets exactly 60 of 75 concurrent requests through when two clients share one Redis', async () => {
    const a = createQuota({ store: 'redis', client: first.client, keyPrefix: first.keyPrefix, clock });
    const b = createQuota({ store: 'redis', client: second.client, keyPrefix: second.keyPrefix, clock });
    const key = freeKey(100);
    const results = await Promise.allSettled(Array.from({ length: 75 }, (_, i) => (i % 2 ? a : b).consumeKey(key)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(60);
    expect(await first.client.get(`${first.keyPrefix}:m:100:${Math.floor(clock.now() / 60_000)}`)).toBe('75');
    await Promise.all([a.close(), b.close()]);
  });

  it('refuses a valid key from an address another instance found over its limit, within one second', async () => {
    const moving: Clock & { at: number } = { at: clock.now(), now: () => moving.at };
    const a = createQuota({ store: 'redis', client: first.client, keyPrefix: first.keyPrefix, clock: moving });
    const b = createQuota({ store: 'redis', client: second.client, keyPrefix: second.keyPrefix, clock: moving });
    const address = '203.0.113.77';
    await b.checkAddress(address);
    for (let i = 0; i < 60; i++) await a.consumeAddress(address);
    await expect(a.checkAddress(address)).rejects.toMatchObject({ code: 'rate_limited' });
    await b.checkAddress(address); // what b read a moment ago still stands
    moving.at += 1_000;
    const error = await refusal(b.checkAddress(address));
    expect(error.code).toBe('rate_limited');
    expect(error.meta.rateLimit).toMatchObject([{ name: 'address', remaining: 0 }]);
    await Promise.all([a.close(), b.close()]);
  });

  it('shares a ban between instances', async () => {
    const a = createQuota({ store: 'redis', client: first.client, keyPrefix: first.keyPrefix, clock });
    const later: Clock = { now: () => clock.now() + 5 * 60_000 };
    const b = createQuota({ store: 'redis', client: second.client, keyPrefix: second.keyPrefix, clock: later });
    const key = freeKey(101);
    await Promise.allSettled(Array.from({ length: 71 }, () => a.consumeKey(key)));
    const error = await refusal(b.consumeKey(key));
    expect(error.code).toBe('api_key_banned');
    expect(error.meta.retryAfter).toBe(600);
    await Promise.all([a.close(), b.close()]);
  });

  it('keeps deployments with different key prefixes apart on one Redis', async () => {
    const other = await openTestRedis();
    const a = createQuota({ store: 'redis', client: first.client, keyPrefix: first.keyPrefix, clock });
    const b = createQuota({ store: 'redis', client: other.client, keyPrefix: other.keyPrefix, clock });
    const key = freeKey(102);
    await Promise.all(Array.from({ length: 60 }, () => a.consumeKey(key)));
    expect((await refusal(a.consumeKey(key))).code).toBe('rate_limited');
    expect((await b.consumeKey(key))[0]).toMatchObject({ name: 'minute', remaining: 59 });
    await Promise.all([a.close(), b.close()]);
    await other.close();
  });

  it('lets Redis expire its entries: a minute window lives five minutes, a ban its length and an hour', async () => {
    const quota = createQuota({ store: 'redis', client: first.client, keyPrefix: first.keyPrefix, clock });
    const key = freeKey(103);
    await Promise.allSettled(Array.from({ length: 71 }, () => quota.consumeKey(key)));
    const ttl = (name: string) => first.client.ttl(`${first.keyPrefix}:${name}`);
    expect(await ttl(`m:103:${Math.floor(clock.now() / 60_000)}`)).toBeGreaterThan(290);
    expect(await ttl(`m:103:${Math.floor(clock.now() / 60_000)}`)).toBeLessThanOrEqual(300);
    expect(await ttl(`d:103:${Math.floor(clock.now() / 86_400_000)}`)).toBeGreaterThan(2 * 86_400 - 10);
    expect(await ttl('b:103')).toBeGreaterThan(900 + 3600 - 10);
    expect(await quota.clearExpired()).toBe(0);
    await quota.close();
  });
});

describe.skipIf(!redisUrl)('the quota while its Redis is away', () => {
  it('answers unavailable at once while Redis is down, never a free pass, and counts again once it returns', async () => {
    const server = await startRedisServer();
    const redis = await openTestRedis(undefined, server.url);
    const quota = createQuota({ store: 'redis', client: redis.client, keyPrefix: redis.keyPrefix, clock });
    try {
      await expect(quota.consumeKey(freeKey(1))).resolves.toHaveLength(2);
      await server.stop();
      for (let i = 0; i < 3; i++) {
        const started = performance.now();
        const error = await refusal(quota.consumeKey(freeKey(1)));
        expect(error.code).toBe('unavailable');
        expect(error.status).toBe(503);
        expect(unavailableDependency(error)).toBe('redis');
        expect(performance.now() - started).toBeLessThan(500);
      }
      expect((await refusal(quota.consumeAddress('203.0.113.5'))).code).toBe('unavailable');
      await server.start();
      // Redis keeps nothing on disk here, so the windows start again from zero.
      await vi.waitFor(() => expect(quota.consumeKey(freeKey(1))).resolves.toHaveLength(2), {
        timeout: 5_000,
        interval: 50,
      });
      expect((await quota.consumeKey(freeKey(1)))[0]).toMatchObject({ name: 'minute', remaining: 58 });
    } finally {
      await quota.close();
      await redis.close().catch(() => {});
      await server.stop();
    }
  });

  it('answers unavailable within the command timeout when Redis hangs, and recovers when it answers again', async () => {
    const server = await startRedisServer();
    const redis = await openTestRedis(undefined, server.url);
    const quota = createQuota({ store: 'redis', client: redis.client, keyPrefix: redis.keyPrefix, clock });
    try {
      await quota.consumeKey(freeKey(1));
      server.pause();
      const started = performance.now();
      expect((await refusal(quota.consumeKey(freeKey(1)))).code).toBe('unavailable');
      expect(performance.now() - started).toBeLessThan(3_000);
      server.resume();
      await vi.waitFor(() => expect(quota.consumeKey(freeKey(1))).resolves.toHaveLength(2), { timeout: 5_000 });
    } finally {
      server.resume();
      await quota.close();
      await redis.close().catch(() => {});
      await server.stop();
    }
  });
});
