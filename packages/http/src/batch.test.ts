import { createPetStore, createQuota, type ClosableQuota, type Clock, type CountedRequest, type PetStore, type PetStoreError } from '@petstore/core';
import { refusal, testDatabases } from '@petstore/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createBatch } from './batch.js';

describe.each(testDatabases)('a batch of calls on its way into the core, on $name', (database) => {
  const clock: Clock & { at: number } = { at: Date.parse('2026-11-21T12:00:15Z'), now: () => clock.at };
  const counted: CountedRequest[] = [];
  let store: PetStore;
  let quota: ClosableQuota;
  let close: () => Promise<void>;
  const clientAddress = '192.0.2.7';

  /** A create whose input reader remembers being read. */
  const create = (name: string) => {
    const call = { read: false, readInput: () => ((call.read = true), { name, categoryId: 1 }) };
    return call;
  };
  const runAll = (context: { apiKey?: string; clientAddress: string }, calls: ReturnType<typeof create>[]) => {
    const batch = createBatch(store, context);
    return Promise.allSettled(calls.map((call, index) => batch.call(index, 'createPet', call.readInput, (read) => store.call('createPet', read, context))));
  };
  const enterprise = async (perMinute: number) =>
    (await store.apiKeys.create({ plan: 'enterprise', limits: { perMinute, perDay: 1_000 } })).key;

  beforeAll(async () => {
    const opened = await database.open();
    quota = createQuota({ store: 'memory', clock }, { banThreshold: 3 });
    store = createPetStore({ db: opened.db, clock, quota, onRequestCounted: (request) => counted.push(request) });
    close = async () => {
      await quota.close();
      await opened.close();
    };
  });
  afterAll(() => close());
  beforeEach(() => {
    clock.at += 60_000;
    counted.length = 0;
  });

  it('refuses a batch without a valid key once, counted once, and runs none of its calls', async () => {
    const calls = [create('a'), create('b'), create('c')];
    const batch = createBatch(store, { clientAddress });
    const admission = await refusal(batch.admitted);
    expect(admission.code).toBe('missing_api_key');
    expect(admission.meta.rateLimit?.[0]).toMatchObject({ name: 'address', remaining: 59 });
    const settled = await Promise.allSettled(calls.map((call, index) => batch.call(index, 'createPet', call.readInput, (read) => store.call('createPet', read, { clientAddress }))));
    expect(settled.map((result) => result.status === 'rejected' && result.reason)).toEqual([admission, admission, admission]);
    expect(calls.map((call) => call.read)).toEqual([false, false, false]);
    expect(counted).toHaveLength(1);
  });

  it('refuses the other calls without running them once the first is refused with 429, counted together toward no ban', async () => {
    const apiKey = await enterprise(1);
    await store.listPets({}, { apiKey, clientAddress });
    counted.length = 0;
    const calls = Array.from({ length: 4 }, (_, i) => create(`past-limit-${i}`));
    const settled = await runAll({ apiKey, clientAddress }, calls);
    const errors = settled.map((result) => (result as PromiseRejectedResult).reason as PetStoreError);
    expect(calls.map((call) => call.read)).toEqual([false, false, false, false]);
    // The three after the first share one count, which counts none of them toward a ban: the batch is one request.
    expect(errors.map((error) => error.code)).toEqual(['rate_limited', 'rate_limited', 'rate_limited', 'rate_limited']);
    expect(errors[1]).toBe(errors[3]);
    expect(errors[1]!.meta.rateLimit?.[0]).toMatchObject({ name: 'minute', remaining: 0 });
    expect(errors[1]!.meta.retryAfter).toBeGreaterThanOrEqual(1);
    expect(counted.filter((request) => request.refusal)).toHaveLength(4);
    // The batch was one refused request: the ban (threshold 3) comes with the third request after it, not before.
    for (let i = 0; i < 2; i++) expect((await refusal(store.listPets({}, { apiKey, clientAddress }))).code).toBe('rate_limited');
    expect((await refusal(store.listPets({}, { apiKey, clientAddress }))).code).toBe('api_key_banned');
  });

  it('answers a batch past a fresh key\'s minute with as many 429s as calls that do not fit, and never bans it', async () => {
    const apiKey = await enterprise(60);
    const calls = Array.from({ length: 100 }, (_, i) => create(`hundred-${i}`));
    const settled = await runAll({ apiKey, clientAddress }, calls);
    const codes = settled.map((result) => (result.status === 'fulfilled' ? 'ok' : (result.reason as PetStoreError).code));
    expect(codes).toEqual([...Array(60).fill('ok'), ...Array(40).fill('rate_limited')]);
    expect(calls.filter((call) => call.read)).toHaveLength(60);
    // One refused request so far (the batch): the third request after it (the threshold) is banned, not before.
    for (let i = 0; i < 2; i++) expect((await refusal(store.listPets({}, { apiKey, clientAddress }))).code).toBe('rate_limited');
    expect((await refusal(store.listPets({}, { apiKey, clientAddress }))).code).toBe('api_key_banned');
  });

  it('runs the others together once the first is admitted, each counted, refusing those after a 429 without reading their input', async () => {
    const apiKey = await enterprise(3);
    const calls = Array.from({ length: 5 }, (_, i) => create(`straddling-${i}`));
    const settled = await runAll({ apiKey, clientAddress }, calls);
    expect(settled.map((result) => result.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'rejected', 'rejected']);
    expect(calls.map((call) => call.read)).toEqual([true, true, true, false, false]);
    expect(counted.filter((request) => request.key !== undefined)).toHaveLength(5);
  });

  it('runs the others when the first fails for another reason', async () => {
    const apiKey = await enterprise(100);
    const batch = createBatch(store, { apiKey, clientAddress });
    const [missing, created] = await Promise.allSettled([
      batch.call(0, 'getPet', () => ({ petId: 2 ** 40 }), (read) => store.call('getPet', read, { apiKey, clientAddress })),
      batch.call(1, 'createPet', create('after-404').readInput, (read) => store.call('createPet', read, { apiKey, clientAddress })),
    ]);
    expect(missing.status === 'rejected' && (missing.reason as PetStoreError).code).toBe('not_found');
    expect(created.status).toBe('fulfilled');
  });

  it('keeps the calls refused along with a 429 in the usage ledger under the operations they named', async () => {
    const { key: apiKey, record } = await store.apiKeys.create({ plan: 'enterprise', limits: { perMinute: 1, perDay: 1_000 } });
    const context = { apiKey, clientAddress };
    const batch = createBatch(store, context);
    const list = () => ({ limit: 5 });
    await Promise.allSettled([
      batch.call(0, 'createPet', create('first').readInput, (read) => store.call('createPet', read, context)),
      batch.call(1, 'createPet', create('second').readInput, (read) => store.call('createPet', read, context)),
      batch.call(2, 'listPets', list, (read) => store.call('listPets', read, context)),
      batch.call(3, 'createPet', create('fourth').readInput, (read) => store.call('createPet', read, context)),
      batch.call(4, 'listPets', list, (read) => store.call('listPets', read, context)),
    ]);
    const rows = await store.usage({ keyId: record.id });
    const byOperation = Object.fromEntries(rows.map((row) => [row.operationId, { served: row.served, rateLimited: row.rateLimited }]));
    expect(byOperation).toEqual({ createPet: { served: 1, rateLimited: 2 }, listPets: { served: 0, rateLimited: 2 } });
  });
});
