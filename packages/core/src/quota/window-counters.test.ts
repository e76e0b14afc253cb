import { randomBytes } from 'node:crypto';
import { openTestRedis, redisUrl, testDatabases } from '@petstore/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Counters } from './counters.js';
import { createMemoryCounters } from './memory-counters.js';
import { createPostgresCounters } from './postgres-counters.js';
import { createRedisCounters } from './redis-counters.js';

interface Store {
  name: string;
  open(): Promise<{ counters: Counters; close(): Promise<void> }>;
}

const postgres = testDatabases.find((d) => d.name === 'postgres');
const stores: Store[] = [
  { name: 'memory', open: async () => ({ counters: createMemoryCounters(), close: async () => {} }) },
  ...(postgres
    ? [
        {
          name: 'postgres',
          async open() {
            const database = await postgres.open();
            const counters = createPostgresCounters(database.pool!);
            return { counters, close: async () => (await counters.close(), await database.close()) };
          },
        },
      ]
    : []),
  ...(redisUrl
    ? [
        {
          name: 'redis',
          async open() {
            const redis = await openTestRedis();
            return { counters: createRedisCounters(redis.client, redis.keyPrefix), close: redis.close };
          },
        },
      ]
    : []),
];

describe.each(stores)('a key\'s minute and day windows on $name', (store) => {
  let opened: Awaited<ReturnType<Store['open']>>;
  beforeAll(async () => {
    opened = await store.open();
  });
  afterAll(() => opened.close());
  const keys = () => {
    const id = randomBytes(4).toString('hex');
    return { minute: { key: `m:${id}`, seconds: 300 }, day: { key: `d:${id}`, seconds: 172_800 } };
  };

  it('counts the whole amount in the minute and only the part within the minute limit in the day', async () => {
    const { counters } = opened;
    const { minute, day } = keys();
    expect(await counters.incrementWindows(minute, day, 5, 3)).toEqual({ minute: 5, day: 3 });
    expect(await counters.incrementWindows(minute, day, 2, 3)).toEqual({ minute: 7, day: 3 });
    expect(await counters.incrementWindows(minute, day, 2, 10)).toEqual({ minute: 9, day: 5 });
    // The same entries the other operations read and write.
    expect(await counters.read(minute.key)).toBe(9);
    expect(await counters.read(day.key)).toBe(5);
    expect(await counters.increment(day.key, day.seconds)).toBe(6);
  });

  it('starts a window again once its entry has expired', async () => {
    const { counters } = opened;
    const minute = { key: `m:${randomBytes(4).toString('hex')}`, seconds: 1 };
    const day = { key: `d:${randomBytes(4).toString('hex')}`, seconds: 300 };
    expect(await counters.incrementWindows(minute, day, 2, 60)).toEqual({ minute: 2, day: 2 });
    await new Promise((resolve) => setTimeout(resolve, 1_300));
    expect(await counters.incrementWindows(minute, day, 1, 60)).toEqual({ minute: 1, day: 3 });
  });
});
