import { createPetStore, createQuota, generateApiKey, type ClosableQuota, type PetStore } from '@petstore/core';
import { testDatabases } from '@petstore/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFetchHandler, type FetchHandler } from './create-fetch-handler.js';

const pets = 'https://app.example.com/petstore/v1/pets?limit=1';
const get = (handler: FetchHandler, headers: Record<string, string> = {}, address?: string) =>
  handler(new Request(pets, { headers }), address === undefined ? undefined : { address });
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

describe.each(testDatabases)('a Fetch handler given no client address, on $name', (database) => {
  let store: PetStore;
  let quota: ClosableQuota;
  let handler: FetchHandler;
  let close: () => Promise<void>;
  beforeEach(async () => {
    const opened = await database.open();
    close = opened.close;
    // One minute's window throughout, wherever the run falls on the wall clock (the counts must not straddle minutes).
    const inOneMinute = Math.floor(Date.now() / 60_000) * 60_000 + 30_000;
    quota = createQuota({ store: 'memory', clock: { now: () => inOneMinute } });
    store = createPetStore({ db: opened.db, isUnavailable: opened.isUnavailable, quota });
    handler = createFetchHandler(store, { basePath: '/petstore' });
  });
  afterEach(async () => {
    await quota.close();
    await close();
  });

  it('lets a brand-new valid key in after 61 key-less requests (and tokens no key could be), counted apart from guesses', async () => {
    for (let i = 0; i < 61; i++) {
      const headers: Record<string, string> = i % 2 === 0 ? {} : { authorization: 'Bearer undefined' };
      const answer = await get(handler, headers);
      expect(answer.status).toBe(i < 60 ? 401 : 429);
    }
    const { key } = await store.apiKeys.create({ plan: 'pro' });
    const answer = await get(handler, bearer(key));
    expect(answer.status).toBe(200);
    expect(answer.headers.get('x-ratelimit-limit')).toBe('300');
  });

  it('still makes a right guess look like a wrong one once 60 well-shaped wrong keys came, while a key that has succeeded keeps working', async () => {
    const { key: customer } = await store.apiKeys.create({ plan: 'pro' });
    expect((await get(handler, bearer(customer))).status).toBe(200);
    for (let i = 0; i < 60; i++) expect((await get(handler, bearer(generateApiKey()))).status).toBe(401);
    const wrong = await get(handler, bearer(generateApiKey()));
    const { key: guessed } = await store.apiKeys.create({ plan: 'pro' });
    const right = await get(handler, bearer(guessed));
    expect(wrong.status).toBe(429);
    expect(right.status).toBe(429);
    expect(await right.json()).toEqual(await wrong.json());
    expect(right.headers.get('x-ratelimit-limit')).toBe(wrong.headers.get('x-ratelimit-limit'));
    expect((await get(handler, bearer(customer))).status).toBe(200);
  });

  it('counts a given address on its own: 61 key-less requests from one address do not touch another', async () => {
    for (let i = 0; i < 61; i++) await get(handler, {}, '203.0.113.7');
    const { key } = await store.apiKeys.create({ plan: 'pro' });
    expect((await get(handler, bearer(key), '203.0.113.7')).status).toBe(429);
    expect((await get(handler, bearer(key), '198.51.100.2')).status).toBe(200);
  });
});
