import { request } from 'node:http';
import { databaseUrl, redisUrl, scratchPostgres, startRedisServer } from '@petstore/testing';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { startServer } from '../src/server.js';
import { startProcess } from './helpers.js';

const KEY = 'health-test-key-0123456789';
/** Each /healthz checks anew (these tests watch it change), instead of answering from a check up to 1 s old. */
const EVERY_CHECK = { PETSTORE_HEALTH_CACHE_MS: '0' };

/** The value of the series of `name` with these labels (and no `reason` unless given), or undefined when absent. */
function sample(page: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of page.split('\n')) {
    const match = new RegExp(`^${name}\\{(.*)\\} (\\S+)$`).exec(line);
    if (!match) continue;
    const found = Object.fromEntries([...match[1]!.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    const wanted = { reason: undefined, ...labels };
    if (Object.entries(wanted).every(([label, value]) => found[label] === value)) return Number(match[2]);
  }
  return undefined;
}

describe('/healthz and the metrics name the dependencies they check', () => {
  it('answers 200 naming the database, then 503 naming it once it is gone, with a gauge and a 503 reason for it', async () => {
    const running = await startServer(loadConfig({ PORT: '0', PETSTORE_METRICS_PORT: '0', PETSTORE_DATA_DIR: 'memory://', PETSTORE_API_KEYS: `${KEY}:pro`, ...EVERY_CHECK }));
    try {
      const up = await fetch(`${running.url}/healthz`);
      expect(up.status).toBe(200);
      expect(await up.json()).toEqual({ status: 'ok', version: expect.any(String), checks: { database: 'ok' } });
      let page = await (await fetch(`${running.metricsUrl}/metrics`)).text();
      expect(sample(page, 'petstore_dependency_up', { dependency: 'database' })).toBe(1);
      expect(page).not.toContain('dependency="redis"');

      await running.service.database.close();
      const down = await fetch(`${running.url}/healthz`);
      expect(down.status).toBe(503);
      expect(down.headers.get('content-type')).toMatch(/^application\/json/);
      expect(down.headers.get('retry-after')).toBe('1');
      expect(await down.json()).toEqual({
        code: 'unavailable',
        message: 'The service is temporarily unavailable: database cannot be reached.',
        status: 503,
        details: [{ path: 'database', message: 'database cannot be reached' }],
      });
      const refused = await fetch(`${running.url}/v1/pets`, { headers: { authorization: `Bearer ${KEY}` } });
      expect(refused.status).toBe(503);
      page = await (await fetch(`${running.metricsUrl}/metrics`)).text();
      expect(sample(page, 'petstore_dependency_up', { dependency: 'database' })).toBe(0);
      expect(sample(page, 'petstore_http_requests_total', { route: '/healthz', status: '503', reason: 'database' })).toBe(1);
      expect(sample(page, 'petstore_http_requests_total', { route: '/v1/pets', status: '503', reason: 'database' })).toBe(1);
      expect(sample(page, 'petstore_http_requests_total', { route: '/healthz', status: '200' })).toBe(1);
    } finally {
      await running.close().catch(() => {});
    }
  });

  it('counts a request the overload guard sheds, with the reason overloaded', async () => {
    const running = await startServer(
      loadConfig({ PORT: '0', PETSTORE_METRICS_PORT: '0', PETSTORE_DATA_DIR: 'memory://', PETSTORE_API_KEYS: `${KEY}:pro`, PETSTORE_MAX_CONCURRENT_REQUESTS: '1' }),
    );
    try {
      // One request holds the only slot while its body has not arrived; the next is shed.
      const { port } = new URL(running.url);
      const held = request({ host: '127.0.0.1', port, method: 'POST', path: '/v1/pets', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', 'content-length': '40' } });
      held.on('error', () => {});
      held.flushHeaders();
      await new Promise((resolve) => setTimeout(resolve, 200));
      const shed = await fetch(`${running.url}/v1/pets`, { headers: { authorization: `Bearer ${KEY}` } });
      expect(shed.status).toBe(503);
      held.destroy();
      const page = await (await fetch(`${running.metricsUrl}/metrics`)).text();
      expect(sample(page, 'petstore_http_requests_total', { route: 'shed', status: '503', reason: 'overloaded' })).toBe(1);
    } finally {
      await running.close();
    }
  });

  it.runIf(databaseUrl)('checks PostgreSQL the same way', async () => {
    const db = await scratchPostgres();
    const running = await startServer(loadConfig({ PORT: '0', DATABASE_URL: db.url, PETSTORE_RATE_LIMIT_STORE: 'memory', ...EVERY_CHECK }));
    try {
      expect(await (await fetch(`${running.url}/healthz`)).json()).toEqual({ status: 'ok', version: expect.any(String), checks: { database: 'ok' } });
      await db.drop();
      const down = await fetch(`${running.url}/healthz`);
      expect(down.status).toBe(503);
      expect(((await down.json()) as { details: unknown }).details).toEqual([{ path: 'database', message: 'database cannot be reached' }]);
    } finally {
      await running.close().catch(() => {});
    }
  });
});

describe.runIf(redisUrl)('an instance on the Redis limiter', () => {
  it('starts while Redis is away, answering 503 with /healthz and the gauge naming Redis, and serves once Redis returns', async () => {
    const redis = await startRedisServer();
    await redis.stop();
    const server = await startProcess({
      PETSTORE_DATA_DIR: 'memory://',
      PETSTORE_API_KEYS: `${KEY}:pro`,
      PETSTORE_RATE_LIMIT_STORE: 'redis',
      REDIS_URL: redis.url,
      PETSTORE_METRICS_PORT: '0',
      ...EVERY_CHECK,
    });
    const metricsUrl = /"metricsUrl":"([^"]+)"/.exec(server.stdout())![1]!;
    const list = () => fetch(`${server.url}/v1/pets?limit=1`, { headers: { authorization: `Bearer ${KEY}` } });
    try {
      expect(server.stdout()).toContain('redis unavailable at start: answering 503 until it returns');
      const refused = await list();
      expect(refused.status).toBe(503);
      expect(await refused.json()).toEqual({ code: 'unavailable', message: 'The service is temporarily unavailable.', status: 503 });
      const health = await fetch(`${server.url}/healthz`);
      expect(health.status).toBe(503);
      expect(((await health.json()) as { details: unknown }).details).toEqual([{ path: 'redis', message: 'redis cannot be reached' }]);
      expect((await fetch(`${server.url}/livez`)).status).toBe(200);
      let page = await (await fetch(`${metricsUrl}/metrics`)).text();
      expect(sample(page, 'petstore_dependency_up', { dependency: 'redis' })).toBe(0);
      expect(sample(page, 'petstore_dependency_up', { dependency: 'database' })).toBe(1);
      expect(sample(page, 'petstore_http_requests_total', { route: '/v1/pets', status: '503', reason: 'redis' })).toBe(1);
      expect(sample(page, 'petstore_http_requests_total', { route: '/healthz', status: '503', reason: 'redis' })).toBe(1);

      await redis.start();
      await expect.poll(async () => (await list()).status, { timeout: 5_000, interval: 50 }).toBe(200);
      expect(await (await fetch(`${server.url}/healthz`)).json()).toEqual({ status: 'ok', version: expect.any(String), checks: { database: 'ok', redis: 'ok' } });
      page = await (await fetch(`${metricsUrl}/metrics`)).text();
      expect(sample(page, 'petstore_dependency_up', { dependency: 'redis' })).toBe(1);
      expect(server.child.exitCode).toBeNull();
    } finally {
      await server.stop();
      await redis.stop();
    }
  });
});
