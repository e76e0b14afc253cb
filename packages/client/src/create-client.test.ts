import { testDatabases } from '@petstore/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, PetStoreApiError, type DeprecationNotice, type PetStoreClient } from './index.js';
import { startService, type TestService } from './testing/service.js';

/** A fetch that records what it sends: the real one, so the requests are real. */
function recordingFetch() {
  const sent: { url: string; method: string; headers: Headers }[] = [];
  const fetch = (url: string, init: RequestInit) => {
    sent.push({ url, method: init.method ?? 'GET', headers: new Headers(init.headers) });
    return globalThis.fetch(url, init);
  };
  return { sent, fetch };
}

describe.each(testDatabases)('the client against the service on $name', (database) => {
  let service: TestService;
  let petstore: PetStoreClient;
  const recorded = recordingFetch();

  beforeAll(async () => {
    service = await startService(database);
    petstore = createClient({
      baseUrl: service.base,
      apiKey: service.apiKey,
      fetch: recorded.fetch,
      onDeprecation: false,
    });
  });
  afterAll(() => service.close());

  it('creates, lists and gets pets through one method per operation', async () => {
    const rex = await petstore.createPet({ name: 'Rex', categoryId: 1, status: 'pending' });
    expect(rex).toEqual({ id: expect.any(Number), name: 'Rex', categoryId: 1, status: 'pending' });
    expect(await petstore.getPet({ petId: rex.id })).toEqual(rex);
    expect(await petstore.listPets({ status: 'pending' })).toEqual([rex]);
    expect((await petstore.listPets()).map((pet) => pet.id)).toContain(rex.id);
  });

  it('throws PetStoreApiError with the Error body, the status and the request id', async () => {
    const missing = await petstore.getPet({ petId: 987_654_321 }).catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(PetStoreApiError);
    expect(missing).toMatchObject({ code: 'not_found', status: 404, requestId: expect.stringMatching(/^[0-9a-f-]{36}$/) });

    const invalid = await petstore.createPet({ name: '', categoryId: 1 }).catch((error: unknown) => error);
    expect(invalid).toMatchObject({
      name: 'PetStoreApiError',
      code: 'invalid_request',
      status: 400,
      details: [{ path: 'name', message: expect.any(String) }],
    });

    const stranger = createClient({ baseUrl: service.base, apiKey: 'not-a-key-the-service-issued-0000' });
    await expect(stranger.listPets()).rejects.toMatchObject({ code: 'invalid_api_key', status: 401 });
  });

  it('sends every write with an Idempotency-Key of its own, and the caller may pass one', async () => {
    recorded.sent.length = 0;
    await petstore.createPet({ name: 'Kit', categoryId: 2 });
    await petstore.createPet({ name: 'Kat', categoryId: 2 });
    await petstore.listPets({ limit: 1 });
    const [first, second, list] = recorded.sent.map((request) => request.headers.get('idempotency-key'));
    expect(first).toMatch(/^[0-9a-f]{32}$/);
    expect(second).toMatch(/^[0-9a-f]{32}$/);
    expect(second).not.toBe(first);
    expect(list).toBeNull();

    const again = { idempotencyKey: `order-${Date.now()}` };
    const once = await petstore.createPet({ name: 'Once', categoryId: 3 }, again);
    expect(await petstore.createPet({ name: 'Once', categoryId: 3 }, again)).toEqual(once);
    await expect(petstore.createPet({ name: 'Twice', categoryId: 3 }, again)).rejects.toMatchObject({
      code: 'idempotency_key_reused',
      status: 409,
    });
  });

  it('paginates every pet over many pages by the Link cursor, and stops when the loop breaks', async () => {
    const created = [];
    for (let i = 0; i < 23; i++) created.push(await petstore.createPet({ name: `Sold ${i}`, categoryId: 9, status: 'sold' }));
    recorded.sent.length = 0;
    const seen = [];
    for await (const pet of petstore.paginate('listPets', { status: 'sold', limit: 5 })) seen.push(pet);
    expect(seen).toEqual(created);
    expect(recorded.sent).toHaveLength(5);
    expect(recorded.sent.slice(1).every((request) => new URL(request.url).searchParams.has('cursor'))).toBe(true);

    recorded.sent.length = 0;
    const firstSix = [];
    for await (const pet of petstore.paginate('listPets', { status: 'sold', limit: 5 })) {
      firstSix.push(pet);
      if (firstSix.length === 6) break;
    }
    expect(firstSix).toEqual(created.slice(0, 6));
    expect(recorded.sent).toHaveLength(2);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(recorded.sent).toHaveLength(2);
  });

  it('tells the caller once that an operation is deprecated, with its sunset and successor', async () => {
    const notices: DeprecationNotice[] = [];
    const fresh = createClient({ baseUrl: service.base, apiKey: service.apiKey, onDeprecation: (notice) => notices.push(notice) });
    const pet = await fresh.createPet({ name: 'Old', categoryId: 1 });
    await fresh.listPets({ limit: 1 });
    expect(notices).toEqual([]);
    await fresh.getPet({ petId: pet.id });
    await fresh.getPet({ petId: pet.id });
    await fresh.getPet({ petId: 987_654_321 }).catch(() => undefined);
    expect(notices).toEqual([
      {
        operationId: 'getPet',
        method: 'GET',
        path: '/pets/{petId}',
        deprecatedSince: new Date('2026-11-21T00:00:00Z'),
        sunset: new Date('2030-12-05T00:00:00Z'),
        successor: `${service.base}/pets`,
      },
    ]);
  });
});
