import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock, Usage } from '@petstore/core';
import type { AppRouter } from '@petstore/trpc';
import { databaseUrl, scratchPostgres } from '@petstore/testing';
import { createTRPCClient, httpLink, TRPCClientError } from '@trpc/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpHandler, openPetStore, type OpenPetStore } from './index.js';

const FREE = 'usage-test-free-key-0123456789';
const OTHER = 'usage-test-other-key-0123456789';
const FLOOD = 'usage-test-flood-key-0123456789';

const targets = [
  { name: 'the embedded database', open: async () => ({ options: { dataDir: 'memory://' }, drop: async () => {} }) },
  ...(databaseUrl
    ? [
        {
          name: 'PostgreSQL',
          async open() {
            const scratch = await scratchPostgres();
            return { options: { databaseUrl: scratch.url }, drop: scratch.drop };
          },
        },
      ]
    : []),
];

describe.each(targets)('GET /v1/usage and pets.usage on $name', (target) => {
  let service: OpenPetStore;
  let server: Server;
  let root: string;
  let drop: () => Promise<void>;
  // Ten seconds into a minute, so that every count of this file falls in one minute window.
  const clock: Clock & { at: number } = { at: Date.parse('2026-11-27T12:00:10Z'), now: () => clock.at };
  const auth = (key: string) => ({ authorization: `Bearer ${key}` });

  beforeAll(async () => {
    const opened = await target.open();
    drop = opened.drop;
    service = await openPetStore({
      ...opened.options,
      clock,
      apiKeys: [
        { key: FREE, plan: 'free' },
        { key: OTHER, plan: 'free' },
        { key: FLOOD, plan: 'free' },
      ],
      quota: { banThreshold: 2 },
    });
    server = createServer(createHttpHandler(service.store));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    root = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await service.close();
    await drop();
  });

  it("answers the caller's plan, windows and today's counts, and 100 calls change no window", async () => {
    expect((await fetch(`${root}/v1/pets`, { headers: auth(FREE) })).status).toBe(200);
    const first = await fetch(`${root}/v1/usage`, { headers: auth(FREE) });
    expect(first.status).toBe(200);
    const body = await first.json();
    expect(body).toEqual({
      plan: 'free',
      windows: [
        { name: 'minute', limit: 60, remaining: 59, reset: Date.parse('2026-11-27T12:01:00Z') / 1000 },
        { name: 'day', limit: 1000, remaining: 999, reset: Date.parse('2026-11-28T00:00:00Z') / 1000 },
      ],
      bannedUntil: null,
      today: {
        day: '2026-11-27',
        served: 1,
        unmetered: 0,
        rateLimited: 0,
        banned: 0,
        clientErrors: 0,
        serverErrors: 0,
        operations: [{ operationId: 'listPets', served: 1, unmetered: 0, rateLimited: 0, banned: 0, clientErrors: 0, serverErrors: 0 }],
      },
    });
    // SPEC's headers still on it: the plan's binding window, as it stands.
    expect(first.headers.get('x-ratelimit-limit')).toBe('60');
    expect(first.headers.get('x-ratelimit-remaining')).toBe('59');
    for (let i = 0; i < 99; i++) {
      const again = await fetch(`${root}/v1/usage`, { headers: auth(FREE) });
      expect(again.status).toBe(200);
      expect(again.headers.get('x-ratelimit-remaining')).toBe('59');
      await again.arrayBuffer();
    }
    const list = await fetch(`${root}/v1/pets`, { headers: auth(FREE) });
    expect(list.headers.get('x-ratelimit-remaining')).toBe('58');
    // The usage calls are in the ledger, as unmetered calls of getUsage: never served, which is billed.
    const { today } = (await (await fetch(`${root}/v1/usage`, { headers: auth(FREE) })).json()) as Usage;
    expect(today.operations).toContainEqual(expect.objectContaining({ operationId: 'getUsage', served: 0, unmetered: 100 }));
    expect(today).toMatchObject({ served: 2, unmetered: 100 });
    expect(today.operations).toContainEqual(expect.objectContaining({ operationId: 'listPets', served: 2 }));
  });

  it('has a limit of its own, 120 a minute, whose 429 leaves the plan untouched', async () => {
    // 101 calls so far in this minute (the test above).
    for (let i = 0; i < 19; i++) expect((await fetch(`${root}/v1/usage`, { headers: auth(FREE) })).status).toBe(200);
    const refused = await fetch(`${root}/v1/usage`, { headers: auth(FREE) });
    expect(refused.status).toBe(429);
    expect((await refused.json()) as object).toMatchObject({ code: 'rate_limited', status: 429 });
    expect(refused.headers.get('x-ratelimit-limit')).toBe('120');
    expect(Number(refused.headers.get('retry-after'))).toBe(50);
    const list = await fetch(`${root}/v1/pets`, { headers: auth(FREE) });
    expect(list.status).toBe(200);
    expect(list.headers.get('x-ratelimit-remaining')).toBe('57');
  });

  it('bans a key that goes on past its own limit, as past the plan\'s windows (threshold 2)', async () => {
    const context = { apiKey: FLOOD, clientAddress: '192.0.2.40' };
    const codes: string[] = [];
    for (let i = 0; i < 124; i++) {
      codes.push(await service.store.getUsage({}, context).then(() => 'ok', (error: { code: string }) => error.code));
    }
    expect(codes).toEqual([...Array(120).fill('ok'), 'rate_limited', 'rate_limited', 'api_key_banned', 'api_key_banned']);
    const list = await fetch(`${root}/v1/pets`, { headers: auth(FLOOD) });
    expect(list.status).toBe(429);
    expect(((await list.json()) as { code: string }).code).toBe('api_key_banned');
    expect(Number(list.headers.get('retry-after'))).toBeGreaterThan(60);
  });

  it('gives callers without a valid key and banned callers their usual answers', async () => {
    const none = await fetch(`${root}/v1/usage`);
    expect(none.status).toBe(401);
    expect(((await none.json()) as { code: string }).code).toBe('missing_api_key');
    expect((await fetch(`${root}/v1/usage`, { headers: auth('psk_wrong-key-0000000000000000') })).status).toBe(401);
    // OTHER spends its minute, then is banned (threshold 2).
    const codes = new Set<number>();
    for (let i = 0; i < 63; i++) codes.add((await fetch(`${root}/v1/pets`, { headers: auth(OTHER) })).status);
    expect(codes).toEqual(new Set([200, 429]));
    const banned = await fetch(`${root}/v1/usage`, { headers: auth(OTHER) });
    expect(banned.status).toBe(429);
    expect(((await banned.json()) as { code: string }).code).toBe('api_key_banned');
    expect(Number(banned.headers.get('retry-after'))).toBeGreaterThan(60);
  });

  it('is the procedure pets.usage on tRPC, typed from the registry', async () => {
    clock.at += 60_000;
    const client = createTRPCClient<AppRouter>({ links: [httpLink({ url: `${root}/trpc`, headers: auth(FREE) })] });
    const usage = await client.pets.usage.query({});
    expect(usage.plan).toBe('free');
    expect(usage.windows[0]).toEqual({ name: 'minute', limit: 60, remaining: 60, reset: Date.parse('2026-11-27T12:02:00Z') / 1000 });
    expect(usage.today.unmetered).toBeGreaterThan(100);
    const anonymous = createTRPCClient<AppRouter>({ links: [httpLink({ url: `${root}/trpc` })] });
    const failure = await anonymous.pets.usage.query({}).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TRPCClientError);
    expect((failure as TRPCClientError<AppRouter>).data?.httpStatus).toBe(401);
  });

  it('is store.getUsage in-process, and store.usage answers the ledger', async () => {
    const { data } = await service.store.getUsage({}, { apiKey: FREE });
    expect(data.plan).toBe('free');
    const rows = await service.store.usage({ from: '2026-11-27', to: '2026-11-27' });
    const ofUsage = rows.filter((row) => row.operationId === 'getUsage');
    expect(ofUsage.reduce((sum, row) => sum + row.unmetered, 0)).toBeGreaterThan(100);
    expect(ofUsage.reduce((sum, row) => sum + row.served, 0)).toBe(0);
    expect(rows.every((row) => row.keyId !== undefined)).toBe(true);
  });
});
