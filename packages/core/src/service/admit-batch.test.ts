import { refusal, testDatabases } from '@petstore/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPetStore, createQuota, type ClosableQuota, type Clock, type PetStore } from '../index.js';

// DECISIONS "Hostile clients and overload": a batch is one request at the edge. `admitBatch` is its one check.
const PER_ADDRESS = 3;

describe.each(testDatabases)('admitting a batch as one request, on $name', (database) => {
  const clock: Clock & { at: number } = { at: Date.parse('2026-11-21T12:00:15Z'), now: () => clock.at };
  let store: PetStore;
  let quota: ClosableQuota;
  let close: () => Promise<void>;
  let addresses = 0;
  const freshAddress = () => `192.0.2.${++addresses}`;

  beforeAll(async () => {
    const opened = await database.open();
    quota = createQuota({ store: 'memory', clock }, { perAddressPerMinute: PER_ADDRESS });
    store = createPetStore({ db: opened.db, clock, quota });
    close = async () => {
      await quota.close();
      await opened.close();
    };
  });
  afterAll(() => close());

  it('refuses a batch without a key once, counted once against the address', async () => {
    const clientAddress = freshAddress();
    const first = await refusal(store.admitBatch({ clientAddress }));
    expect(first.code).toBe('missing_api_key');
    expect(first.meta.rateLimit?.[0]).toMatchObject({ name: 'address', limit: PER_ADDRESS, remaining: PER_ADDRESS - 1 });
    const wrong = await refusal(store.admitBatch({ apiKey: 'x'.repeat(24), clientAddress }));
    expect(wrong.code).toBe('invalid_api_key');
    expect(wrong.meta.rateLimit?.[0]?.remaining).toBe(PER_ADDRESS - 2);
  });

  it('refuses with the address\'s 429 once the address is over its limit', async () => {
    const clientAddress = freshAddress();
    for (let i = 0; i < PER_ADDRESS; i++) await refusal(store.admitBatch({ clientAddress }));
    const limited = await refusal(store.admitBatch({ clientAddress }));
    expect(limited.code).toBe('rate_limited');
    expect(limited.meta.retryAfter).toBeGreaterThanOrEqual(1);
    expect(limited.meta.rateLimit?.[0]).toMatchObject({ name: 'address', remaining: 0 });
  });

  it('admits a valid key without counting it, so each call of the batch counts once', async () => {
    const { key: apiKey } = await store.apiKeys.create({ plan: 'free' });
    const clientAddress = freshAddress();
    await store.admitBatch({ apiKey, clientAddress });
    await store.admitBatch({ apiKey, clientAddress });
    const { meta } = await store.listPets({}, { apiKey, clientAddress });
    expect(meta.rateLimit?.[0]).toMatchObject({ name: 'minute', remaining: 59 });
  });

  it('gives a valid key that never succeeded at a refused address the same 429 as a wrong key, uncharged', async () => {
    const { key: apiKey } = await store.apiKeys.create({ plan: 'free' });
    const { key: known } = await store.apiKeys.create({ plan: 'free' });
    const clientAddress = freshAddress();
    await store.listPets({}, { apiKey: known, clientAddress });
    await quota.flush();
    for (let i = 0; i < PER_ADDRESS; i++) await refusal(store.admitBatch({ clientAddress }));
    const wrong = await refusal(store.admitBatch({ apiKey: 'y'.repeat(24), clientAddress }));
    const valid = await refusal(store.admitBatch({ apiKey, clientAddress }));
    expect(valid.toBody()).toEqual(wrong.toBody());
    expect(valid.meta.rateLimit).toEqual(wrong.meta.rateLimit);
    expect(valid.meta.retryAfter).toBe(wrong.meta.retryAfter);
    await store.admitBatch({ apiKey: known, clientAddress });
    const { meta } = await store.listPets({}, { apiKey, clientAddress: freshAddress() });
    expect(meta.rateLimit?.[0]?.remaining).toBe(59);
  });

  it('admits a principal without counting it', async () => {
    const principal = { id: 'user:admit', plan: 'free' } as const;
    await store.admitBatch({ principal });
    const { meta } = await store.listPets({}, { principal });
    expect(meta.rateLimit?.[0]?.remaining).toBe(59);
  });
});
