import { randomBytes } from 'node:crypto';
import { openTestRedis, redisUrl, refusal, startRedisServer } from '@petstore/testing';
import { describe, expect, it } from 'vitest';
import { openPetStore } from './index.js';

describe('opening the pet store on the redis limiter', () => {
  it('refuses to open without a Redis URL, naming REDIS_URL', async () => {
    await expect(openPetStore({ dataDir: 'memory://', rateLimitStore: 'redis' })).rejects.toThrow(/REDIS_URL/);
  });

  it('fails at start-up when Redis cannot be reached, without revealing its password', async () => {
    const started = performance.now();
    const opening = openPetStore({ dataDir: 'memory://', rateLimitStore: 'redis', redisUrl: 'redis://:hunter2@127.0.0.1:1' });
    await expect(opening).rejects.toThrow(/^Cannot reach Redis at redis:\/\/:\*\*\*@127\.0\.0\.1:1/);
    await expect(opening).rejects.not.toThrow(/hunter2/);
    // At once, not after ioredis's retries (which never end): the time is mostly the embedded database opening,
    // which takes seconds on a busy 2-core machine.
    expect(performance.now() - started).toBeLessThan(15_000);
  });
});

describe.skipIf(!redisUrl)('the pet store on the redis limiter', () => {
  it('fails at start-up with the reason Redis gave, such as a wrong password', async () => {
    const server = await startRedisServer(['--requirepass', 'right-password']);
    try {
      const url = server.url.replace('redis://', 'redis://:wrong-password@');
      await expect(openPetStore({ dataDir: 'memory://', rateLimitStore: 'redis', redisUrl: url })).rejects.toThrow(
        /^Cannot reach Redis at redis:\/\/:\*\*\*@127\.0\.0\.1:\d+: WRONGPASS/,
      );
      const right = await openPetStore({
        dataDir: 'memory://',
        rateLimitStore: 'redis',
        redisUrl: server.url.replace('redis://', 'redis://:right-password@'),
      });
      await right.close();
    } finally {
      await server.stop();
    }
  });

  it('counts requests in Redis under its key prefix and disconnects its client on close', async () => {
    const observer = await openTestRedis(`petstore_test_${randomBytes(6).toString('hex')}`);
    const clients = async () => String(await observer.client.client('LIST')).trim().split('\n').length;
    const before = await clients();
    const key = 'redis-embedding-key-0123456789';
    const service = await openPetStore({
      dataDir: 'memory://',
      apiKeys: [{ key, plan: 'enterprise', limits: { perMinute: 3, perDay: 100 } }],
      rateLimitStore: 'redis',
      redisUrl,
      redisKeyPrefix: observer.keyPrefix,
    });
    try {
      expect(await clients()).toBe(before + 1);
      for (let i = 0; i < 3; i++) await service.store.listPets({ limit: 1 }, { apiKey: key });
      expect((await refusal(service.store.listPets({ limit: 1 }, { apiKey: key }))).code).toBe('rate_limited');
      expect(await observer.client.keys(`${observer.keyPrefix}:m:*`)).toHaveLength(1);
    } finally {
      await service.close();
    }
    await expect.poll(clients).toBe(before);
    await observer.close();
  });
});
