import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { createPetStore, createQuota, type ClosableQuota, type PetStore } from '@petstore/core';
import { testDatabases } from '@petstore/testing';
import { createPetsRouter, maxBatchSize, petsResponseMeta, withPetStoreErrors } from '@petstore/trpc';
import { createTRPCClient, httpBatchLink, httpBatchStreamLink, httpLink, TRPCClientError } from '@trpc/client';
import { initTRPC } from '@trpc/server';
import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { createHTTPServer } from '@trpc/server/adapters/standalone';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * A host's tRPC server as most are written: its context holds the adapter's request, and its base procedure has a
 * middleware that extends the context (here with who the caller says it is), so every procedure sees a new object.
 * The pets procedures take their key from `ctx.req`; a caller who names an `x-tenant` is counted as that principal.
 */
function hostRouter(store: PetStore) {
  // isDev false, as in production: no stack traces in the answers.
  const t = initTRPC
    .context<{ req: Request | import('node:http').IncomingMessage }>()
    .create({ errorFormatter: withPetStoreErrors(), isDev: false });
  const withTenant = t.procedure.use(({ ctx, next }) => {
    const header = ctx.req instanceof Request ? ctx.req.headers.get('x-tenant') : ctx.req.headers['x-tenant'];
    return next({ ctx: { ...ctx, tenant: typeof header === 'string' ? header : undefined } });
  });
  const pets = createPetsRouter(withTenant, {
    store,
    principal: (ctx) => {
      if (ctx.tenant) return { principal: { id: ctx.tenant, plan: 'enterprise', limits: { perMinute: 2, perDay: 1_000 } } };
      const authorization = ctx.req instanceof Request ? ctx.req.headers.get('authorization') : ctx.req.headers.authorization;
      return { apiKey: /^Bearer (.+)$/.exec(authorization ?? '')?.[1] };
    },
  });
  const router = t.router({ pets, hello: withTenant.query(({ ctx }) => `hello ${ctx.tenant ?? 'stranger'}`) });
  return { router, responseMeta: petsResponseMeta(pets) };
}
type HostRouter = ReturnType<typeof hostRouter>['router'];

const adapters = [
  {
    adapter: 'standalone',
    start(store: PetStore) {
      const { router, responseMeta } = hostRouter(store);
      return createHTTPServer({ router, createContext: ({ req }) => ({ req }), responseMeta, maxBatchSize }) as Server;
    },
  },
  {
    adapter: 'fetch',
    start(store: PetStore) {
      const { router, responseMeta } = hostRouter(store);
      const fetch = (req: Request) => fetchRequestHandler({ router, req, endpoint: '', createContext: ({ req }) => ({ req }), responseMeta, maxBatchSize });
      return serve({ fetch, port: 0, hostname: '127.0.0.1' }) as Server;
    },
  },
];

const cases = testDatabases.flatMap((database) => adapters.map((adapter) => ({ ...adapter, database, name: database.name })));

describe.each(cases)('the pets procedures behind a host\'s context-extending middleware, $adapter adapter on $name', ({ database, start }) => {
  let store: PetStore;
  let quota: ClosableQuota;
  let closeDatabase: () => Promise<void>;
  let host: Server;
  let url: string;
  let auth: Record<string, string>;
  const get = (path: string, headers: Record<string, string> = {}, input: unknown = {}) =>
    fetch(`${url}/${path}?${path.includes(',') ? 'batch=1&' : ''}input=${encodeURIComponent(JSON.stringify(input))}`, { headers });

  beforeAll(async () => {
    const opened = await database.open();
    closeDatabase = opened.close;
    quota = createQuota({ store: 'memory' });
    store = createPetStore({ db: opened.db, isUnavailable: opened.isUnavailable, quota });
    auth = { authorization: `Bearer ${(await store.apiKeys.create({ plan: 'pro' })).key}` };
    host = start(store);
    if (!host.listening) await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
    else await new Promise<void>((resolve) => (host.address() ? resolve() : host.once('listening', () => resolve())));
    url = `http://127.0.0.1:${(host.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    host.closeAllConnections?.();
    await new Promise((resolve) => host.close(resolve));
    await quota.close();
    await closeDatabase();
  });

  it('puts the rate-limit headers on the host\'s responses, single and batched', async () => {
    const single = await get('pets.list', auth);
    expect(single.status).toBe(200);
    expect([single.headers.get('x-ratelimit-limit'), single.headers.get('x-ratelimit-remaining')]).toEqual(['300', '299']);
    expect(single.headers.get('ratelimit-policy')).toBe('"minute";q=300;w=60, "day";q=10000;w=86400');
    const batch = await get('pets.list,pets.get,hello', auth, { 1: { petId: 2 ** 40 } });
    expect(batch.status).toBe(207);
    expect(batch.headers.get('x-ratelimit-remaining')).toBe('297');
    const tenant = await get('pets.list', { 'x-tenant': 'acme' });
    expect([tenant.status, tenant.headers.get('x-ratelimit-limit'), tenant.headers.get('x-ratelimit-remaining')]).toEqual([200, '2', '1']);
  });

  it('refuses a batch without a valid key once, counted once against the address', async () => {
    const paths = Array.from({ length: 20 }, () => 'pets.list').join(',');
    const first = await get(paths, {}, {});
    expect(first.status).toBe(401);
    const remaining = Number(first.headers.get('x-ratelimit-remaining'));
    const body = (await first.json()) as { error: { data: { error: { code: string } } } }[];
    expect(body).toHaveLength(20);
    expect(new Set(body.map((entry) => entry.error.data.error.code))).toEqual(new Set(['missing_api_key']));
    const second = await get(paths, { authorization: `Bearer ${'z'.repeat(24)}` }, {});
    expect(second.status).toBe(401);
    expect(Number(second.headers.get('x-ratelimit-remaining'))).toBe(remaining - 1);
    const streamed = createTRPCClient<HostRouter>({ links: [httpBatchStreamLink({ url })] });
    const calls = await Promise.allSettled([streamed.pets.list.query({}), streamed.pets.page.query({}), streamed.pets.get.query({ petId: 1 })]);
    expect(calls.map((call) => call.status === 'rejected' && (call.reason as TRPCClientError<HostRouter>).data?.error?.code)).toEqual([
      'missing_api_key',
      'missing_api_key',
      'missing_api_key',
    ]);
    const after = await get('pets.list');
    expect(Number(after.headers.get('x-ratelimit-remaining'))).toBe(remaining - 3);
  });

  it('refuses a batch of more than maxBatchSize calls before any call runs, with the adapter\'s maxBatchSize', async () => {
    const names = Array.from({ length: maxBatchSize + 1 }, () => 'pets.create').join(',');
    const inputs = Object.fromEntries(Array.from({ length: maxBatchSize + 1 }, (_, i) => [i, { name: 'too-many', categoryId: 1 }]));
    const refused = await fetch(`${url}/${names}?batch=1`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify(inputs),
    });
    expect(refused.status).toBe(400);
    const text = await refused.text();
    expect(text.length).toBeLessThan(600);
    expect(JSON.parse(text)).toMatchObject({ error: { data: { code: 'BAD_REQUEST', httpStatus: 400 } } });
    const { data } = await store.listPets({ limit: 100 }, { principal: { id: 'reader', plan: 'business' } });
    expect(data.filter((pet) => pet.name === 'too-many')).toEqual([]);
  });

  it('refuses the calls after a 429 without running them, and types the Error body for the host\'s client', async () => {
    const client = createTRPCClient<HostRouter>({ links: [httpBatchLink({ url, headers: { 'x-tenant': 'limited' } })] });
    const calls = await Promise.allSettled(
      Array.from({ length: 5 }, (_, i) => client.pets.create.mutate({ name: `tenant-${i}`, categoryId: 1 })),
    );
    expect(calls.map((call) => call.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'rejected', 'rejected']);
    for (const call of calls.slice(2)) {
      const error = (call as PromiseRejectedResult).reason as TRPCClientError<HostRouter>;
      const body = error.data?.error; // typed: the host's shape with the Error body, through withPetStoreErrors
      expect([body?.code, body?.status, error.data?.httpStatus]).toEqual(['rate_limited', 429, 429]);
    }
    const hello = await createTRPCClient<HostRouter>({ links: [httpLink({ url, headers: { 'x-tenant': 'limited' } })] }).hello.query();
    expect(hello).toBe('hello limited');
  });
});
