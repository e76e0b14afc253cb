import type { AddressInfo } from 'node:net';
import { createPetStore, createQuota, PetStoreError, type ClosableQuota, type PetStore } from '@petstore/core';
import { testDatabases } from '@petstore/testing';
import { createPetsRouter, petsResponseMeta, withPetStoreErrors } from '@petstore/trpc';
import { createTRPCClient, httpLink, TRPCClientError } from '@trpc/client';
import { initTRPC, TRPCError } from '@trpc/server';
import { createHTTPServer } from '@trpc/server/adapters/standalone';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpHandler } from './create-http-handler.js';
import { trpcContract } from './testing/trpc-contract.js';
import { createServer, type IncomingMessage, type Server } from 'node:http';

/** A host's own context: its request and, when its session says so, a logged-in user with a plan. */
interface HostContext {
  req: IncomingMessage;
  user: { id: string; plan: 'free' | 'pro' } | undefined;
}

const t = initTRPC.context<HostContext>().create({
  // The host's own formatter adds a field of its own; the pets errors get their documented shape on top.
  errorFormatter: withPetStoreErrors(({ shape }) => ({ ...shape, data: { ...shape.data, host: 'formatted' } })),
});

function hostRouter(store: PetStore) {
  const pets = createPetsRouter(t.procedure, {
    store,
    principal: (ctx) =>
      ctx.user
        ? { principal: { id: ctx.user.id, plan: ctx.user.plan } }
        : { apiKey: /^Bearer (.+)$/.exec(ctx.req.headers.authorization ?? '')?.[1] },
  });
  const router = t.router({
    pets,
    whoami: t.procedure.query(({ ctx }) => {
      if (!ctx.user) throw new TRPCError({ code: 'UNAUTHORIZED', message: 'Log in first.' });
      return ctx.user.id;
    }),
    legacy: t.procedure.query(() => {
      throw new PetStoreError('not_found', 'No such legacy record.');
    }),
  });
  return { router, responseMeta: petsResponseMeta(pets) };
}

const listen = async (server: Server) => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

describe.each(testDatabases)('the pets procedures in a host\'s own tRPC server on $name', (database) => {
  let store: PetStore;
  let quota: ClosableQuota;
  let apiKey: string;
  let closeDatabase: () => Promise<void>;
  let host: Server;
  let hostUrl: string;
  beforeAll(async () => {
    const opened = await database.open();
    closeDatabase = opened.close;
    // A clock that stands still: a user's 61 calls stay in one minute window (on the wall clock, a minute that ended
    // among them gave the 61st a fresh window).
    const clock = { now: () => Date.parse('2026-11-27T12:00:10Z') };
    quota = createQuota({ store: 'memory', clock });
    store = createPetStore({ db: opened.db, isUnavailable: opened.isUnavailable, quota, clock });
    apiKey = (await store.apiKeys.create({ plan: 'pro' })).key;
    const { router, responseMeta } = hostRouter(store);
    host = createHTTPServer({
      router,
      createContext: ({ req }) => {
        const user = req.headers['x-user'];
        return { req, user: typeof user === 'string' ? { id: user, plan: user.startsWith('pro-') ? 'pro' : 'free' } : undefined };
      },
      responseMeta,
    });
    hostUrl = await listen(host);
  });
  afterAll(async () => {
    host.closeAllConnections();
    await new Promise((resolve) => host.close(resolve));
    await quota.close();
    await closeDatabase();
  });

  it('passes the same tRPC contract as the service\'s own /trpc', async () => {
    await trpcContract(hostUrl, { authorization: `Bearer ${apiKey}` }, 'pending');
    const own = createServer(createHttpHandler(store));
    const ownUrl = await listen(own);
    try {
      await trpcContract(`${ownUrl}/trpc`, { authorization: `Bearer ${apiKey}` }, 'sold');
    } finally {
      own.closeAllConnections();
      await new Promise((resolve) => own.close(resolve));
    }
  });

  it('counts each logged-in user under its own plan and quota, with the rate-limit headers on the response', async () => {
    const first = await fetch(`${hostUrl}/pets.list?input=${encodeURIComponent('{}')}`, { headers: { 'x-user': 'alice' } });
    expect(first.status).toBe(200);
    expect(first.headers.get('x-ratelimit-limit')).toBe('60');
    expect(first.headers.get('x-ratelimit-remaining')).toBe('59');
    const pro = await fetch(`${hostUrl}/pets.list?input=${encodeURIComponent('{}')}`, { headers: { 'x-user': 'pro-bob' } });
    expect(pro.headers.get('x-ratelimit-limit')).toBe('300');
    const alice = createTRPCClient<ReturnType<typeof hostRouter>['router']>({
      links: [httpLink({ url: hostUrl, headers: { 'x-user': 'alice' } })],
    });
    for (let i = 0; i < 59; i++) await alice.pets.list.query({ limit: 1 });
    const limited = await alice.pets.list.query({ limit: 1 }).catch((error: unknown) => error);
    expect(limited).toBeInstanceOf(TRPCClientError);
    expect((limited as TRPCClientError<ReturnType<typeof hostRouter>['router']>).data).toMatchObject({
      code: 'TOO_MANY_REQUESTS',
      httpStatus: 429,
      error: { code: 'rate_limited', status: 429 },
      host: 'formatted',
    });
    const raw = await fetch(`${hostUrl}/pets.list?input=${encodeURIComponent('{}')}`, { headers: { 'x-user': 'alice' } });
    expect(raw.status).toBe(429);
    expect(raw.headers.get('retry-after')).toMatch(/^[0-9]+$/);
    const carol = await fetch(`${hostUrl}/pets.list?input=${encodeURIComponent('{}')}`, { headers: { 'x-user': 'carol' } });
    expect([carol.status, carol.headers.get('x-ratelimit-remaining')]).toEqual([200, '59']);
  });

  it('lets a logged-in user place orders as its principal, and see only its own', async () => {
    type Router = ReturnType<typeof hostRouter>['router'];
    const as = (user: string) => createTRPCClient<Router>({ links: [httpLink({ url: hostUrl, headers: { 'x-user': user } })] });
    const [dora, eve] = [as('pro-dora'), as('pro-eve')];
    const { data: pet } = await store.createPet({ name: 'For Dora', categoryId: 4 }, { apiKey });
    const order = await dora.pets.placeOrder.mutate({ petId: pet.id });
    expect(order).toMatchObject({ petId: pet.id, status: 'placed' });
    expect(await dora.pets.listOrders.query({})).toEqual([order]);
    expect(await eve.pets.listOrders.query({})).toEqual([]);
    const hidden = await eve.pets.completeOrder.mutate({ orderId: order.id }).catch((error: unknown) => error);
    expect((hidden as TRPCClientError<Router>).data).toMatchObject({ httpStatus: 404, error: { code: 'not_found' } });
    expect(await dora.pets.completeOrder.mutate({ orderId: order.id })).toMatchObject({ status: 'completed' });
    // An API key is not the principal: the key's caller sees none of the user's orders.
    expect((await store.listOrders({}, { apiKey })).data).toEqual([]);
  });

  it('lets the host\'s own errors through unchanged, and gives a PetStoreError thrown in a host procedure its shape', async () => {
    const client = createTRPCClient<ReturnType<typeof hostRouter>['router']>({ links: [httpLink({ url: hostUrl })] });
    const unauthorized = await client.whoami.query().catch((error: unknown) => error);
    expect((unauthorized as TRPCClientError<ReturnType<typeof hostRouter>['router']>).message).toBe('Log in first.');
    const data = (unauthorized as TRPCClientError<ReturnType<typeof hostRouter>['router']>).data as Record<string, unknown>;
    expect(data).toMatchObject({ code: 'UNAUTHORIZED', httpStatus: 401, host: 'formatted' });
    expect(data).not.toHaveProperty('error');
    const legacy = await client.legacy.query().catch((error: unknown) => error);
    expect((legacy as TRPCClientError<ReturnType<typeof hostRouter>['router']>).data).toMatchObject({
      code: 'NOT_FOUND',
      httpStatus: 404,
      error: { code: 'not_found', message: 'No such legacy record.' },
    });
  });
});
