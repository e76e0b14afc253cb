import { redisUrl, startRedisServer } from '@petstore/testing';
import { describe, expect, it } from 'vitest';
import { startProcess } from './helpers.js';

describe.runIf(redisUrl)('a server on the redis limiter while Redis is away', () => {
  it('answers 503 unavailable at once, stays up, and serves again by itself when Redis returns', async () => {
    const redis = await startRedisServer();
    const key = 'redis-outage-key-0123456789';
    const server = await startProcess({
      PETSTORE_DATA_DIR: 'memory://',
      PETSTORE_API_KEYS: `${key}:pro`,
      PETSTORE_RATE_LIMIT_STORE: 'redis',
      REDIS_URL: redis.url,
    });
    const list = () => fetch(`${server.url}/v1/pets?limit=1`, { headers: { authorization: `Bearer ${key}` } });
    try {
      expect((await list()).status).toBe(200);
      await redis.stop();
      for (let i = 0; i < 3; i++) {
        const started = performance.now();
        const response = await list();
        expect(response.status).toBe(503);
        expect(await response.json()).toEqual({
          code: 'unavailable',
          message: 'The service is temporarily unavailable.',
          status: 503,
        });
        expect(performance.now() - started).toBeLessThan(1_000);
      }
      expect((await fetch(`${server.url}/v1/pets`)).status).toBe(503);
      const trpc = await fetch(`${server.url}/trpc/pets.list?input=${encodeURIComponent('{}')}`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(trpc.status).toBe(503);
      expect(server.child.exitCode).toBeNull();

      await redis.start();
      const back = performance.now();
      let status = 0;
      while (status !== 200 && performance.now() - back < 5_000) {
        status = (await list()).status;
        if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 25));
      }
      expect(status).toBe(200);
      if (process.env.PETSTORE_SHOW_SERVER_LOG) console.log(`first 2xx ${Math.round(performance.now() - back)} ms after Redis was back`, server.stdout());
      expect(server.child.exitCode).toBeNull();
      expect(server.stderr()).toBe('');
      // The outage is two log lines naming Redis, not one per refused request, and never a database outage.
      await new Promise((resolve) => setTimeout(resolve, 700));
      const outageLines = server
        .stdout()
        .split('\n')
        .filter((line) => /unavailable: answering 503|available again/.test(line))
        .map((line) => JSON.parse(line) as { msg: string; dependency: string });
      expect(outageLines.map((line) => [line.dependency, line.msg])).toEqual([
        ['redis', 'redis unavailable: answering 503 until it returns'],
        ['redis', 'redis available again'],
      ]);
    } finally {
      await server.stop();
      await redis.stop();
    }
  });
});
