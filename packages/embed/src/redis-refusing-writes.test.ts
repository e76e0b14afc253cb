import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { redisUrl, refusal, startRedisServer } from '@petstore/testing';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpHandler, createOutageLog, openPetStore } from './index.js';

// A Redis that answers PING but refuses every write (out of memory with noeviction, or a read-only replica after
// REPLICAOF): every keyed request gets 503, so /healthz must name Redis as down, and the outage log must say so once
// and stay down until writes are taken again, instead of flipping every probe.
describe.skipIf(!redisUrl)('a Redis that refuses writes', () => {
  const key = 'redis-refusing-writes-key-01234';
  let server: Awaited<ReturnType<typeof startRedisServer>>;
  let admin: Redis;
  let service: Awaited<ReturnType<typeof openPetStore>>;
  let http: ReturnType<typeof createServer>;
  let url: string;
  const lines: { level: string; message: string; fields: Record<string, unknown> }[] = [];
  const logger = {
    info: (fields: object, message: string) => void lines.push({ level: 'info', message, fields: fields as Record<string, unknown> }),
    warn: (fields: object, message: string) => void lines.push({ level: 'warn', message, fields: fields as Record<string, unknown> }),
    error: (fields: object, message: string) => void lines.push({ level: 'error', message, fields: fields as Record<string, unknown> }),
  };
  let outageLog: ReturnType<typeof createOutageLog>;

  beforeAll(async () => {
    server = await startRedisServer(['--maxmemory-policy', 'noeviction']);
    admin = new Redis(server.url);
    service = await openPetStore({
      dataDir: 'memory://',
      apiKeys: [{ key, plan: 'enterprise', limits: { perMinute: 10_000, perDay: 100_000 } }],
      rateLimitStore: 'redis',
      redisUrl: server.url,
    });
    outageLog = createOutageLog({ logger, probe: (dependency) => service.probe(dependency), probeEveryMs: 10 });
    http = createServer(createHttpHandler(service.store, { dependencies: service.dependencies, logger, outageLog, healthCacheMs: 0 }));
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => http.close(resolve));
    outageLog.close();
    await service.close();
    admin.disconnect();
    await server.stop();
  });

  const health = async () => {
    const response = await fetch(`${url}/healthz`);
    return { status: response.status, body: (await response.json()) as { details?: { path: string }[]; checks?: Record<string, string> } };
  };
  const list = () => fetch(`${url}/v1/pets`, { headers: { authorization: `Bearer ${key}` } });
  const lapse = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const outageLines = () => lines.filter((line) => line.fields.dependency === 'redis').map((line) => `${line.level} ${line.message}`);

  /** While `refuse` holds: keyed requests get 503, /healthz names Redis, and the outage is logged once, then once back. */
  async function whileRefusing(refuse: () => Promise<unknown>, restore: () => Promise<unknown>) {
    lines.length = 0;
    expect((await health()).status).toBe(200);
    expect((await list()).status).toBe(200);
    await refuse();
    expect(await admin.ping()).toBe('PONG');
    expect((await list()).status).toBe(503);
    const down = await health();
    expect(down.status).toBe(503);
    expect(down.body.details).toEqual([{ path: 'redis', message: expect.stringContaining('redis') }]);
    // Many probe periods (10 ms each) and requests later, the outage is still one line, never "available again".
    for (let i = 0; i < 10; i++) {
      expect((await list()).status).toBe(503);
      await lapse(20);
    }
    expect(outageLines()).toEqual(['error redis unavailable: answering 503 until it returns']);
    expect(outageLog.down).toBe(true);
    await restore();
    for (let i = 0; i < 100 && outageLog.down; i++) await lapse(10);
    expect(outageLines()).toEqual(['error redis unavailable: answering 503 until it returns', 'warn redis available again']);
    expect((await health()).status).toBe(200);
    expect((await list()).status).toBe(200);
  }

  it('is down while out of memory with noeviction, and up again when it has room', async () => {
    await whileRefusing(
      () => admin.config('SET', 'maxmemory', '1'),
      () => admin.config('SET', 'maxmemory', '0'),
    );
  });

  it('is down while a read-only replica, and up again once it is a primary', async () => {
    await whileRefusing(
      () => admin.replicaof('127.0.0.1', 1),
      () => admin.replicaof('NO', 'ONE'),
    );
  });

  it('refuses keyed calls in-process with 503 naming redis meanwhile', async () => {
    await admin.config('SET', 'maxmemory', '1');
    try {
      const error = await refusal(service.store.listPets({}, { apiKey: key }));
      expect(error.code).toBe('unavailable');
      expect(await service.probe('redis')).toBe(false);
    } finally {
      await admin.config('SET', 'maxmemory', '0');
    }
    expect(await service.probe('redis')).toBe(true);
  });
});
