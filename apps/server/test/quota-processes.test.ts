import { databaseUrl, scratchPostgres } from '@petstore/testing';
import { describe, expect, it } from 'vitest';
import { startProcess } from './helpers.js';

describe.runIf(databaseUrl)('the shared postgres limiter across two server processes', () => {
  it('gives exactly 60 successes to 75 concurrent requests on a fresh free key spread over both', async () => {
    const db = await scratchPostgres();
    const key = 'two-process-free-key-0123';
    const env = { DATABASE_URL: db.url, PETSTORE_API_KEYS: `${key}:free` };
    const first = await startProcess(env);
    const second = await startProcess(env);
    try {
      // The windows are real fixed minutes here: keep the burst away from a minute boundary.
      const intoMinute = Date.now() % 60_000;
      if (intoMinute > 50_000) await new Promise((resolve) => setTimeout(resolve, 60_500 - intoMinute));
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
    } finally {
      await Promise.all([first.stop(), second.stop()]);
      await db.drop();
    }
  });
});
