import { scratchPostgres, databaseUrl } from '@petstore/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { startServer, type RunningServer } from '../src/server.js';

const KEY = 'server-test-key-0123456789';

const targets = [
  { name: 'pglite', env: async () => ({ env: { PETSTORE_DATA_DIR: 'memory://' }, drop: async () => {} }) },
  ...(databaseUrl
    ? [{ name: 'postgres', env: async () => { const db = await scratchPostgres(); return { env: { DATABASE_URL: db.url }, drop: db.drop }; } }]
    : []),
];

describe.each(targets)('one process, one port, on $name', (target) => {
  let running: RunningServer;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    const { env, drop: d } = await target.env();
    drop = d;
    running = await startServer(loadConfig({ ...env, PORT: '0', PETSTORE_API_KEYS: `${KEY}:pro` }));
  });
  afterAll(async () => {
    await running.close();
    await drop();
  });

  it('answers /healthz with 200 without a key', async () => {
    const response = await fetch(`${running.url}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      status: 'ok',
      version: expect.stringMatching(/^\d+\.\d+\.\d+/),
      checks: { database: 'ok' },
    });
  });

  it('serves REST under /v1 and tRPC under /trpc on the same port, sharing one store', async () => {
    const headers = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
    const created = await fetch(`${running.url}/v1/pets`, { method: 'POST', headers, body: JSON.stringify({ name: 'Both', categoryId: 2 }) });
    expect(created.status).toBe(201);
    const pet = (await created.json()) as { id: number };
    const viaTrpc = await fetch(`${running.url}/trpc/pets.get?input=${encodeURIComponent(JSON.stringify({ petId: pet.id }))}`, { headers });
    expect(viaTrpc.status).toBe(200);
    expect(((await viaTrpc.json()) as { result: { data: unknown } }).result.data).toEqual(pet);
  });

  it('serves the OpenAPI document and the docs without a key', async () => {
    const document = await fetch(`${running.url}/v1/openapi.json`);
    expect(document.status).toBe(200);
    expect(((await document.json()) as { openapi: string }).openapi).toMatch(/^3\.1\./);
    const docs = await fetch(`${running.url}/v1/docs/`);
    expect(docs.status).toBe(200);
    expect(docs.headers.get('content-type')).toContain('text/html');
  });

  it('answers an unknown path outside /v1 with 404 and the Error body', async () => {
    const response = await fetch(`${running.url}/v2/pets`);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ code: 'not_found', message: expect.any(String), status: 404 });
  });
});

describe('/healthz when the database is gone', () => {
  it('answers readiness 503 but liveness 200 on the embedded database once it is closed', async () => {
    // Each /healthz checks anew (the test watches it change), instead of answering from a check up to 1 s old.
    const running = await startServer(loadConfig({ PORT: '0', PETSTORE_DATA_DIR: 'memory://', PETSTORE_HEALTH_CACHE_MS: '0' }));
    expect((await fetch(`${running.url}/livez`)).status).toBe(200);
    expect((await fetch(`${running.url}/healthz`)).status).toBe(200);
    await running.service.database.close();
    const response = await fetch(`${running.url}/healthz`);
    expect(response.status).toBe(503);
    expect(await response.json()).toMatchObject({ code: 'unavailable', status: 503 });
    const live = await fetch(`${running.url}/livez`);
    expect(live.status).toBe(200);
    expect(await live.json()).toEqual({ status: 'ok' });
    const post = await fetch(`${running.url}/livez`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    await new Promise<void>((resolve) => running.server.close(() => resolve()));
  });

  it.runIf(databaseUrl)('answers 503 when PostgreSQL drops the database, and REST answers 503 unavailable', async () => {
    const db = await scratchPostgres();
    const running = await startServer(loadConfig({ PORT: '0', DATABASE_URL: db.url, PETSTORE_RATE_LIMIT_STORE: 'memory', PETSTORE_API_KEYS: `${KEY}:pro` }));
    const ok = await fetch(`${running.url}/v1/pets`, { headers: { authorization: `Bearer ${KEY}` } });
    expect(ok.status).toBe(200);
    await db.drop();
    const health = await fetch(`${running.url}/healthz`);
    expect(health.status).toBe(503);
    const list = await fetch(`${running.url}/v1/pets?limit=3`, { headers: { authorization: `Bearer ${KEY}` } });
    expect(list.status).toBe(503);
    const create = await fetch(`${running.url}/v1/pets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Lost', categoryId: 1 }),
    });
    expect(create.status).toBe(503);
    expect(await list.json()).toMatchObject({ code: 'unavailable', status: 503 });
    await running.close().catch(() => {});
  });
});
