import { databaseUrl, refusal, testDatabases } from '@petstore/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPetStore, createQuota, type ClosableQuota, type Clock, type PetStore, type PostgresPoolLike } from '../index.js';

// The calls of a batch that waited for one refused with 429 are refused along with it (`meter`'s `refusedWith`):
// the key's, in its usage, but counted in none of its windows, and on a shared store not one more statement: a banned
// key's 100-call batch costs what one refused call does.
const postgres = testDatabases.find((database) => database.name === 'postgres');

describe.runIf(databaseUrl)('calls refused along with a 429, on PostgreSQL with postgres counters', () => {
  const clock: Clock = { now: () => Date.parse('2026-11-21T12:00:15Z') };
  const statements: string[] = [];
  let store: PetStore;
  let quota: ClosableQuota;
  let close: () => Promise<void>;

  beforeAll(async () => {
    const opened = await postgres!.open();
    const pool: PostgresPoolLike = { query: (config) => (statements.push(config.text), opened.pool!.query(config)) };
    quota = createQuota({ store: 'postgres', pool, clock }, { banThreshold: 1 });
    store = createPetStore({ db: opened.db, clock, quota, listCacheMs: 0 });
    close = async () => {
      await store.close();
      await quota.close();
      await opened.close();
    };
  });
  afterAll(() => close());

  it('asks the quota\'s store nothing, spends no window, and keeps them in the usage ledger as refused, under their operation', async () => {
    const { key, record } = await store.apiKeys.create({ plan: 'enterprise', limits: { perMinute: 1, perDay: 100 } });
    await store.listPets({}, { apiKey: key });
    const codes: string[] = [];
    for (let i = 0; i < 3; i++) codes.push((await refusal(store.listPets({}, { apiKey: key }))).code);
    expect(codes).toEqual(['rate_limited', 'api_key_banned', 'api_key_banned']);
    const first = await refusal(store.listPets({}, { apiKey: key }));
    expect(first.code).toBe('api_key_banned');

    statements.length = 0;
    const meta = await store.meter({ apiKey: key }, 99, { refusedWith: first, operationId: 'createPet' });
    expect(meta.keyId).toBe(record.id);
    expect(meta.rateLimit).toBeUndefined();
    expect(statements).toEqual([]);

    const rows = await store.usage({ keyId: record.id });
    expect(rows.map(({ operationId, served, rateLimited, banned }) => ({ operationId, served, rateLimited, banned }))).toEqual(
      expect.arrayContaining([
        { operationId: 'listPets', served: 1, rateLimited: 1, banned: 3 },
        { operationId: 'createPet', served: 0, rateLimited: 0, banned: 99 },
      ]),
    );
    expect(rows).toHaveLength(2);
  });
});
