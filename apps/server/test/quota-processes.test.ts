import { randomBytes } from 'node:crypto';
import { databaseUrl, openTestRedis, processClock, redisUrl, scratchPostgres } from '@petstore/testing';
import { describe, expect, it } from 'vitest';
import { startProcess } from './helpers.js';

const limiters = [
  { name: 'postgres', redis: false },
  ...(redisUrl ? [{ name: 'redis', redis: true }] : []),
];

describe.runIf(databaseUrl).each(limiters)('the shared $name limiter across two server processes', ({ redis }) => {
  it('gives exactly 60 successes to 75 concurrent requests on a fresh free key spread over both', async () => {
    const db = await scratchPostgres();
    const counters = redis ? await openTestRedis(`petstore_test_${randomBytes(6).toString('hex')}`) : undefined;
    const key = 'two-process-free-key-0123';
    // The windows are fixed clock minutes: both processes share a clock the test controls.
    const clock = await processClock();
    const env = {
      ...clock.env,
      DATABASE_URL: db.url,
      PETSTORE_API_KEYS: `${key}:free`,
      ...(counters
        ? { PETSTORE_RATE_LIMIT_STORE: 'redis', REDIS_URL: redisUrl!, PETSTORE_REDIS_KEY_PREFIX: counters.keyPrefix }
        : {}),
    };
    const first = await startProcess(env);
    const second = await startProcess(env);
    try {
      await clock.minuteWithRoom(10);
      const statuses = await Promise.all(
        Array.from({ length: 75 }, (_, i) =>
          fetch(`${(i % 2 ? first : second).url}/v1/pets?limit=1`, { headers: { authorization: `Bearer ${key}` } }).then(
            async (r) => [r.status, r.headers.get('retry-after')] as const,
          ),
        ),
      );
      expect(statuses.filter(([s]) => s === 200)).toHaveLength(60);
      const refused = statuses.filter(([s]) => s === 429);
      expect(refused).toHaveLength(15);
      for (const [, retryAfter] of refused) expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
      if (counters) expect(await counters.client.keys(`${counters.keyPrefix}:m:*`)).toHaveLength(1);
    } finally {
      await Promise.all([first.stop(), second.stop()]);
      await counters?.close();
      await db.drop();
      await clock.close();
    }
  });
});
