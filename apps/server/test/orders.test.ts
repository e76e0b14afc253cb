import { createClient } from '@petstore/client';
import { petStoreLinks } from '@petstore/client/trpc';
import { PetStoreError } from '@petstore/core';
import type { AppRouter } from '@petstore/trpc';
import { createTRPCClient, TRPCClientError } from '@trpc/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { startServer, type RunningServer } from '../src/server.js';
import { serverDatabases } from './hostile/databases.js';

// DECISIONS "Orders": one pet, one sale; orders are their owner's; the pet's other operations respect them. Against
// the real service on both databases, over REST, tRPC, the client and in-process.

const KEY = 'orders-key-0123456789abcdef';
const OTHER = 'orders-other-0123456789abcdef';
const auth = (key: string) => ({ authorization: `Bearer ${key}`, 'content-type': 'application/json' });


describe.each(serverDatabases)('orders on $name', (target) => {
  let running: RunningServer;
  let drop: () => Promise<void>;
  const api = (path: string) => `${running.url}/v1${path}`;
  const call = (method: string, path: string, body?: unknown, key = KEY, headers: Record<string, string> = {}) =>
    fetch(api(path), { method, headers: { ...auth(key), ...headers }, body: body === undefined ? undefined : JSON.stringify(body) }).then(
      async (response) => ({ status: response.status, headers: response.headers, body: response.status === 204 ? undefined : ((await response.json()) as any) }),
    );
  const newPet = async (status = 'available') => (await call('POST', '/pets', { name: 'For sale', categoryId: 3, status })).body as { id: number };
  const petOf = async (id: number) => (await call('GET', `/pets/${id}`)).body as { status: string };

  beforeAll(async () => {
    const { env, drop: d } = await target.env();
    drop = d;
    running = await startServer(loadConfig({ ...env, PORT: '0', PETSTORE_API_KEYS: `${KEY}:enterprise:100000:1000000,${OTHER}:pro`, PETSTORE_LOG_LEVEL: 'silent' }));
  });
  afterAll(async () => {
    await running.close();
    await drop();
  });

  it('places an order (201, Location, the pet pending), completes it (the pet sold), and refuses to close it again', async () => {
    const pet = await newPet();
    const placed = await call('POST', '/store/orders', { petId: pet.id });
    expect(placed.status).toBe(201);
    expect(placed.body).toEqual({ id: expect.any(Number), petId: pet.id, status: 'placed', placedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) });
    expect(placed.headers.get('location')).toBe(api(`/store/orders/${placed.body.id}`));
    expect((await petOf(pet.id)).status).toBe('pending');
    const completed = await call('POST', `/store/orders/${placed.body.id}/complete`);
    expect([completed.status, completed.body.status]).toEqual([200, 'completed']);
    expect((await petOf(pet.id)).status).toBe('sold');
    for (const [method, path] of [['POST', `/store/orders/${placed.body.id}/complete`], ['DELETE', `/store/orders/${placed.body.id}`]] as const) {
      const again = await call(method, path);
      expect([again.status, again.body.code]).toEqual([409, 'order_not_open']);
    }
    expect((await call('GET', `/store/orders/${placed.body.id}`)).body.status).toBe('completed');
  });

  it('cancels an order: the pet is available again and can be sold to the next buyer', async () => {
    const pet = await newPet();
    const placed = await call('POST', '/store/orders', { petId: pet.id });
    const cancelled = await call('DELETE', `/store/orders/${placed.body.id}`);
    expect([cancelled.status, cancelled.body.status]).toEqual([200, 'cancelled']);
    expect((await petOf(pet.id)).status).toBe('available');
    expect((await call('POST', '/store/orders', { petId: pet.id })).status).toBe(201);
  });

  it('refuses an order of a pet that is not available (409 pet_not_available) or does not exist (404)', async () => {
    for (const status of ['pending', 'sold']) {
      const refused = await call('POST', '/store/orders', { petId: (await newPet(status)).id });
      expect([refused.status, refused.body.code]).toEqual([409, 'pet_not_available']);
    }
    expect((await call('POST', '/store/orders', { petId: 987654 })).status).toBe(404);
    expect((await call('POST', '/store/orders', {})).status).toBe(400);
    expect((await call('POST', '/store/orders', { petId: 1, status: 'placed' })).status).toBe(400);
  });

  it('keeps an ordered pet\'s status to the order: PATCH of its status or DELETE is 409 pet_has_open_order, its name may change', async () => {
    const pet = await newPet();
    const placed = await call('POST', '/store/orders', { petId: pet.id });
    for (const change of [{ status: 'available' }, { status: 'sold', name: 'Both' }]) {
      const refused = await call('PATCH', `/pets/${pet.id}`, change);
      expect([refused.status, refused.body.code]).toEqual([409, 'pet_has_open_order']);
    }
    expect((await call('DELETE', `/pets/${pet.id}`)).body.code).toBe('pet_has_open_order');
    const renamed = await call('PATCH', `/pets/${pet.id}`, { name: 'Renamed' });
    expect([renamed.status, renamed.body.status]).toEqual([200, 'pending']);
    await call('POST', `/store/orders/${placed.body.id}/complete`);
    expect((await call('PATCH', `/pets/${pet.id}`, { status: 'available' })).status).toBe(200);
  });

  it('shows an order to its owner only: anyone else gets 404 and an empty list; a rolled key sees its predecessor\'s', async () => {
    const { store } = running.service;
    const first = await store.apiKeys.create({ plan: 'pro' });
    const placed = await call('POST', '/store/orders', { petId: (await newPet()).id }, first.key);
    const id = placed.body.id;
    expect((await call('GET', `/store/orders/${id}`, undefined, OTHER)).status).toBe(404);
    expect((await call('POST', `/store/orders/${id}/complete`, undefined, OTHER)).status).toBe(404);
    expect((await call('DELETE', `/store/orders/${id}`, undefined, OTHER)).status).toBe(404);
    expect((await call('GET', '/store/orders', undefined, OTHER)).body).toEqual([]);
    const rolled = await store.apiKeys.roll(first.record.id, { graceMs: 60_000 });
    if (typeof rolled === 'string') return expect.unreachable(rolled);
    expect((await call('GET', '/store/orders', undefined, rolled.key)).body).toEqual([placed.body]);
    expect((await call('POST', `/store/orders/${id}/complete`, undefined, rolled.key)).status).toBe(200);
  });

  it('lists orders by status, a page at a time with a next Link', async () => {
    const { key } = await running.service.store.apiKeys.create({ plan: 'pro' });
    const ids: number[] = [];
    for (let i = 0; i < 3; i++) ids.push((await call('POST', '/store/orders', { petId: (await newPet()).id }, key)).body.id);
    await call('DELETE', `/store/orders/${ids[1]}`, undefined, key);
    const page = await call('GET', '/store/orders?limit=2', undefined, key);
    expect(page.body.map((order: { id: number }) => order.id)).toEqual(ids.slice(0, 2));
    const next = /<([^>]+)>; rel="next"/.exec(page.headers.get('link') ?? '')?.[1];
    expect(next).toBeDefined();
    const rest = await fetch(next!, { headers: auth(key) });
    expect(((await rest.json()) as { id: number }[]).map((order) => order.id)).toEqual([ids[2]]);
    const placed = await call('GET', '/store/orders?status=placed', undefined, key);
    expect(placed.body.map((order: { id: number }) => order.id)).toEqual([ids[0], ids[2]]);
  });

  it('counts the catalogue by status in the inventory', async () => {
    const before = (await call('GET', '/store/inventory')).body as Record<string, number>;
    expect(Object.keys(before).sort()).toEqual(['available', 'pending', 'sold']);
    const pet = await newPet();
    await call('POST', '/store/orders', { petId: pet.id });
    const after = (await call('GET', '/store/inventory')).body as Record<string, number>;
    expect(after).toEqual({ ...before, pending: before.pending! + 1 });
  });

  it('replays a placed order for its Idempotency-Key instead of refusing the second as not available', async () => {
    const pet = await newPet();
    const headers = { 'idempotency-key': `buy-${pet.id}` };
    const first = await call('POST', '/store/orders', { petId: pet.id }, KEY, headers);
    const again = await call('POST', '/store/orders', { petId: pet.id }, KEY, headers);
    expect([again.status, again.headers.get('idempotent-replayed')]).toEqual([201, 'true']);
    expect(again.body).toEqual(first.body);
  });

  it('sells over tRPC, through @petstore/client and in-process, where a host principal owns its own orders', async () => {
    const trpc = createTRPCClient<AppRouter>({ links: petStoreLinks({ url: `${running.url}/trpc`, apiKey: KEY }) });
    const viaTrpc = await trpc.pets.placeOrder.mutate({ petId: (await newPet()).id });
    expect(await trpc.pets.getOrder.query({ orderId: viaTrpc.id })).toEqual(viaTrpc);
    const refused = await trpc.pets.placeOrder.mutate({ petId: viaTrpc.petId }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(TRPCClientError);
    expect((refused as TRPCClientError<AppRouter>).data).toMatchObject({ httpStatus: 409, code: 'CONFLICT', error: { code: 'pet_not_available' } });
    expect((await trpc.pets.ordersPage.query({ limit: 1 })).items).toHaveLength(1);

    const petstore = createClient({ baseUrl: `${running.url}/v1`, apiKey: KEY });
    const viaClient = await petstore.placeOrder({ petId: (await newPet()).id });
    expect(await petstore.cancelOrder({ orderId: viaClient.id })).toMatchObject({ status: 'cancelled' });
    expect(Object.keys(await petstore.getInventory())).toEqual(['available', 'pending', 'sold']);

    const { store } = running.service;
    const alice = { principal: { id: 'user:alice', plan: 'pro' as const } };
    const bob = { principal: { id: 'user:bob', plan: 'pro' as const } };
    const { data: order } = await store.placeOrder({ petId: (await newPet()).id }, alice);
    expect((await store.listOrders({}, alice)).data).toEqual([order]);
    expect((await store.listOrders({}, bob)).data).toEqual([]);
    const hidden = await store.getOrder({ orderId: order.id }, bob).catch((error: unknown) => error);
    expect([hidden instanceof PetStoreError, (hidden as PetStoreError).code]).toEqual([true, 'not_found']);
    expect((await store.completeOrder({ orderId: order.id }, alice)).data.status).toBe('completed');
  });
});

describe.each(serverDatabases)('concurrent orders on $name', (target) => {
  let running: RunningServer;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    const { env, drop: d } = await target.env();
    drop = d;
    running = await startServer(loadConfig({ ...env, PORT: '0', PETSTORE_API_KEYS: `${KEY}:enterprise:100000:1000000`, PETSTORE_LOG_LEVEL: 'silent' }));
  });
  afterAll(async () => {
    await running.close();
    await drop();
  });
  const send = (method: string, path: string, body?: unknown) =>
    fetch(`${running.url}/v1${path}`, { method, headers: auth(KEY), body: body === undefined ? undefined : JSON.stringify(body) }).then(async (response) => ({
      status: response.status,
      body: (await response.json()) as { code?: string; status?: string },
    }));

  it('sells a pet once of 100 concurrent orders, 5 times: one 201, 99 × 409 pet_not_available, the pet pending', async () => {
    for (let round = 1; round <= 5; round++) {
      const pet = (await send('POST', '/pets', { name: 'Last kitten', categoryId: 1 })).body as unknown as { id: number };
      const answers = await Promise.all(Array.from({ length: 100 }, () => send('POST', '/store/orders', { petId: pet.id })));
      expect(answers.filter((answer) => answer.status === 201)).toHaveLength(1);
      expect(answers.filter((answer) => answer.status === 409 && answer.body.code === 'pet_not_available')).toHaveLength(99);
      expect((await send('GET', `/pets/${pet.id}`)).body.status).toBe('pending');
      expect((await send('GET', '/store/inventory')).body).toMatchObject({ pending: round });
    }
  });

  it('does one of 50 concurrent completes and cancels of one order; the others get 409 order_not_open', async () => {
    for (let round = 0; round < 3; round++) {
      const pet = (await send('POST', '/pets', { name: 'Contested', categoryId: 1 })).body as unknown as { id: number };
      const order = (await send('POST', '/store/orders', { petId: pet.id })).body as unknown as { id: number };
      const answers = await Promise.all(
        Array.from({ length: 50 }, (_, i) => (i % 2 ? send('DELETE', `/store/orders/${order.id}`) : send('POST', `/store/orders/${order.id}/complete`))),
      );
      const done = answers.filter((answer) => answer.status === 200);
      expect(done).toHaveLength(1);
      expect(answers.filter((answer) => answer.status === 409 && answer.body.code === 'order_not_open')).toHaveLength(49);
      expect((await send('GET', `/pets/${pet.id}`)).body.status).toBe(done[0]!.body.status === 'completed' ? 'sold' : 'available');
    }
  });
});
