import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createPetStore, PetStoreError, type Database } from '@petstore/core';
import { databaseUrl, scratchPostgres } from '@petstore/testing';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpHandler, openPetStore, type OpenPetStore } from './index.js';

const KEY = 'outage-test-key-0123456789';
const unavailable = new PetStoreError('unavailable').toBody();

async function listen(server: Server) {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('a database that cannot be reached, on the core path', () => {
  it('answers 503 unavailable with Retry-After when the connection is refused (createPetStore classifies by default)', async () => {
    const pool = new pg.Pool({ connectionString: 'postgres://postgres:postgres@127.0.0.1:1/petstore' });
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    const server = createServer(createHttpHandler(createPetStore({ db })));
    try {
      const url = await listen(server);
      const answer = await fetch(`${url}/v1/pets`, { headers: { authorization: `Bearer ${KEY}` } });
      expect(answer.status).toBe(503);
      expect(answer.headers.get('retry-after')).toBe('1');
      expect(await answer.json()).toStrictEqual(unavailable);
    } finally {
      server.close();
      await db.destroy();
    }
  });
});

describe.skipIf(!databaseUrl)('a pool with no connection to give', () => {
  let service: OpenPetStore;
  let drop: () => Promise<void>;
  let server: Server;
  let url: string;
  beforeAll(async () => {
    const scratch = await scratchPostgres();
    drop = scratch.drop;
    service = await openPetStore({ databaseUrl: scratch.url, poolSize: 1, apiKeys: [{ key: KEY, plan: 'pro' }] });
    server = createServer(createHttpHandler(service.store));
    url = await listen(server);
  });
  afterAll(async () => {
    server?.close();
    await service?.close();
    await drop?.();
  });

  it('answers 503 unavailable with Retry-After after a bounded wait (5 s), never a hang, and serves again once freed', { timeout: 20_000 }, async () => {
    // A slow transaction holds the pool's one connection.
    const held = await service.database.pool!.connect();
    const started = Date.now();
    let answer: Response;
    try {
      answer = await fetch(`${url}/v1/pets?limit=1`, { headers: { authorization: `Bearer ${KEY}` } });
    } finally {
      held.release();
    }
    const waited = Date.now() - started;
    expect(answer.status).toBe(503);
    expect(answer.headers.get('retry-after')).toBe('1');
    expect(await answer.json()).toStrictEqual(unavailable);
    expect(waited).toBeGreaterThanOrEqual(4_900);
    expect(waited).toBeLessThan(7_000);
    expect((await fetch(`${url}/v1/pets?limit=1`, { headers: { authorization: `Bearer ${KEY}` } })).status).toBe(200);
  });
});

// The bound as a host passes it (production default 5 s): short here, so the test waits milliseconds.
const BOUND_MS = 300;

describe.skipIf(!databaseUrl).each(['pool', 'db'] as const)("a host's own pg pool given as %s, with pg's defaults, held to exhaustion", (given) => {
  let service: OpenPetStore;
  let pool: pg.Pool;
  let hostDb: Kysely<any>;
  let drop: () => Promise<void>;
  let server: Server;
  let url: string;
  beforeAll(async () => {
    const scratch = await scratchPostgres();
    drop = scratch.drop;
    // pg's default connectionTimeoutMillis is 0: the pool itself would make a caller wait for ever.
    pool = new pg.Pool({ connectionString: scratch.url, max: 3 });
    pool.on('error', () => {});
    hostDb = new Kysely<any>({ dialect: new PostgresDialect({ pool }) });
    const database = given === 'pool' ? { pool } : { db: hostDb };
    service = await openPetStore({ ...database, acquireTimeoutMs: BOUND_MS, apiKeys: [{ key: KEY, plan: 'pro' }] });
    server = createServer(createHttpHandler(service.store));
    url = await listen(server);
  });
  afterAll(async () => {
    server?.close();
    await service?.close();
    await hostDb?.destroy();
    await drop?.();
  });

  it('answers 503 unavailable after the bound in-process and over HTTP, then serves again once a connection is free', { timeout: 30_000 }, async () => {
    const held = await Promise.all([pool.connect(), pool.connect(), pool.connect()]);
    try {
      const started = performance.now();
      const inProcess = await service.store.listPets({ limit: 1 }, { apiKey: KEY }).catch((error: unknown) => error);
      const waited = performance.now() - started;
      expect(inProcess).toBeInstanceOf(PetStoreError);
      expect((inProcess as PetStoreError).toBody()).toStrictEqual(unavailable);
      // Not before the bound (a timer never fires early); the upper side is the bound a host set, not a hang.
      expect(waited).toBeGreaterThanOrEqual(BOUND_MS - 5);

      const answer = await fetch(`${url}/v1/pets?limit=1`, { headers: { authorization: `Bearer ${KEY}` } });
      expect(answer.status).toBe(503);
      expect(answer.headers.get('retry-after')).toBe('1');
      expect(await answer.json()).toStrictEqual(unavailable);
    } finally {
      for (const client of held) client.release();
    }
    // The connections handed over after their waits were refused went back to the pool.
    expect((await fetch(`${url}/v1/pets?limit=1`, { headers: { authorization: `Bearer ${KEY}` } })).status).toBe(200);
    expect(pool.totalCount).toBeLessThanOrEqual(3);
    expect(pool.waitingCount).toBe(0);
  });
});
