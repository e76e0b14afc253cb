import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createPetStore, createQuota, type ClosableQuota, type PetStore } from '@petstore/core';
import { testDatabases, type OpenDatabase } from '@petstore/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHttpHandler } from './create-http-handler.js';

// A flood of /healthz costs at most one check of each dependency a second per instance (counted here, not timed: the
// store's clock stands still until the test moves it), and /healthz is counted against the client's address as a
// request without a key is.

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One GET on a connection of its own (so a flood is that many connections at once). */
function get(port: number, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject).end();
  });
}

/** `connections` requests for /healthz at once, each from an address of its own (told by the trusted proxy header). */
const flood = (port: number, connections = 128) =>
  Promise.all(Array.from({ length: connections }, (_, i) => get(port, '/healthz', { 'x-forwarded-for': `10.7.${i >> 8}.${i & 255}` })));

describe.each(testDatabases)('/healthz under a flood, on $name', (database) => {
  let now = Date.parse('2026-11-21T12:00:10Z');
  const clock = { now: () => now };
  let opened: OpenDatabase;
  let closed: Promise<void> | undefined;
  let quota: ClosableQuota;
  let store: PetStore;
  const servers: Server[] = [];
  /** Checks of the database begun, and the most that ran at once. */
  let checks: { begun: number; running: number; most: number };

  beforeEach(async () => {
    opened = await database.open();
    closed = undefined;
    quota = createQuota({ store: 'memory', clock });
    store = createPetStore({ db: opened.db, isUnavailable: opened.isUnavailable, clock, quota });
    checks = { begun: 0, running: 0, most: 0 };
  });
  afterEach(async () => {
    for (const server of servers.splice(0)) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
    await quota.close();
    await (closed ??= opened.close());
  });

  /**
   * The service's handler on port 0, its database check counted; answers the port. With `holdUntil`, a check waits
   * until the server has received that many requests.
   */
  async function serve(options: { healthCacheMs?: number } = {}, holdUntil = 0): Promise<number> {
    let arrived = 0;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const database = async () => {
      checks.begun += 1;
      checks.running += 1;
      checks.most = Math.max(checks.most, checks.running);
      try {
        if (arrived < holdUntil) await held;
        return await store.isHealthy();
      } finally {
        checks.running -= 1;
      }
    };
    const server = createServer(createHttpHandler(store, { dependencies: { database }, trustProxy: true, tracerProvider: false, ...options }));
    server.on('request', () => {
      if (++arrived === holdUntil) release();
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return (server.address() as AddressInfo).port;
  }

  it('checks the database once for 128 connections at once, from 128 addresses, and again once its answer is a second old', async () => {
    const port = await serve();
    const first = await flood(port);
    expect(first.map((answer) => answer.status)).toEqual(first.map(() => 200));
    expect(JSON.parse(first[0]!.body)).toEqual({ status: 'ok', version: expect.any(String), checks: { database: 'ok' } });
    expect(checks).toEqual({ begun: 1, running: 0, most: 1 });

    now += 999;
    await flood(port);
    expect(checks.begun).toBe(1);
    now += 1;
    await flood(port);
    expect(checks).toEqual({ begun: 2, running: 0, most: 1 });
  });

  it('shares a failing check as well: once the database is gone, a flood costs one check, each answer naming the database', async () => {
    const port = await serve();
    expect((await get(port, '/healthz')).status).toBe(200);
    await (closed = opened.close());
    now += 1_000;
    const answers = await flood(port);
    expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 503));
    expect(JSON.parse(answers[127]!.body)).toEqual({
      code: 'unavailable',
      message: 'The service is temporarily unavailable: database cannot be reached.',
      status: 503,
      details: [{ path: 'database', message: 'database cannot be reached' }],
    });
    expect(answers[127]!.headers['retry-after']).toBe('1');
    expect(checks).toEqual({ begun: 2, running: 0, most: 1 });
  });

  it('runs one check at a time even when told to reuse none (healthCacheMs 0): requests that come meanwhile share it', async () => {
    // The check holds until all 128 requests have come, so every one of them comes while it runs.
    const port = await serve({ healthCacheMs: 0 }, 128);
    const answers = await flood(port);
    expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 200));
    expect(checks).toEqual({ begun: 1, running: 0, most: 1 });
    // Reusing nothing: the next request checks again.
    expect((await get(port, '/healthz')).status).toBe(200);
    expect(checks.begun).toBe(2);
  });

  it('counts /healthz against the address as a request without a key: its 61st in a minute is the 429 Error body with rate-limit headers, whatever key it carries', async () => {
    const port = await serve();
    const from = { 'x-forwarded-for': '198.51.100.7' };
    const { key } = await store.apiKeys.create({ plan: 'pro' });
    // The key succeeds from that address: an API call would then pass the address's limit, but /healthz reads no key.
    expect((await get(port, '/v1/pets', { ...from, authorization: `Bearer ${key}` })).status).toBe(200);
    const remaining: string[] = [];
    for (let i = 0; i < 30; i++) {
      const answer = await get(port, '/healthz', from);
      expect(answer.status).toBe(200);
      expect(answer.headers['x-ratelimit-limit']).toBe('60');
      remaining.push(answer.headers['x-ratelimit-remaining'] as string);
    }
    // The same count as the API's requests without a key.
    for (let i = 0; i < 30; i++) {
      const answer = await get(port, '/v1/pets', from);
      expect(answer.status).toBe(401);
      remaining.push(answer.headers['x-ratelimit-remaining'] as string);
    }
    expect(remaining).toEqual(Array.from({ length: 60 }, (_, i) => String(59 - i)));
    const refused = await get(port, '/healthz', { ...from, authorization: `Bearer ${key}` });
    expect(refused.status).toBe(429);
    expect(refused.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(JSON.parse(refused.body)).toEqual({ code: 'rate_limited', message: expect.any(String), status: 429 });
    expect(refused.headers).toMatchObject({ 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '0', 'retry-after': expect.any(String) });
    expect(checks.begun).toBe(1);
    // /livez is counted against nothing: a balancer asks it often, from one address.
    for (let i = 0; i < 100; i++) expect((await get(port, '/livez', from)).status).toBe(200);
    // Another address has its own count.
    expect((await get(port, '/healthz', { 'x-forwarded-for': '198.51.100.8' })).status).toBe(200);
  });
});
