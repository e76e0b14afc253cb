import { testDatabases } from '@petstore/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPetStore, createQuota, PetStoreError, type Clock, type PetStore } from '../index.js';
import { createUsageLedger } from './usage-ledger.js';

const DAY_MS = 86_400_000;

describe.each(testDatabases)('the usage ledger on $name', (database) => {
  let close: () => Promise<void>;
  let store: PetStore;
  let other: PetStore;
  let rows: () => Promise<number>;
  let dropPets: () => Promise<void>;
  const clock: Clock & { at: number } = { at: Date.parse('2026-11-27T12:00:05Z'), now: () => clock.at };

  beforeAll(async () => {
    const opened = await database.open();
    // Two stores on one database and one quota: two instances of a fleet.
    const quota = createQuota({ store: 'memory', clock }, { banThreshold: 2 });
    store = createPetStore({ db: opened.db, clock, quota, usage: { retentionDays: 3 } });
    other = createPetStore({ db: opened.db, clock, quota });
    rows = async () => (await opened.db.selectFrom('usage_days').selectAll().execute()).length;
    dropPets = () => opened.db.schema.dropTable('pets').execute();
    close = async () => {
      await Promise.all([store.close(), other.close()]);
      await quota.close();
      await opened.close();
    };
  });
  afterAll(() => close());

  it('counts each key\'s requests by day, operation and outcome, in memory until asked, across instances', async () => {
    const { key, record } = await store.apiKeys.create({ plan: 'free' });
    await store.createPet({ name: 'Rex', categoryId: 1 }, { apiKey: key });
    await other.listPets({}, { apiKey: key });
    await store.listPets({}, { apiKey: key });
    await other.getPet({ petId: 987_654 }, { apiKey: key }).catch(() => {});
    await store.createPet({ name: '', categoryId: 1 }, { apiKey: key }).catch(() => {});
    await store.meter({ apiKey: key }, 1, { answered: 'method_not_allowed' });
    expect(await rows()).toBe(0);
    await other.close();
    const zero = { served: 0, unmetered: 0, rateLimited: 0, banned: 0, clientErrors: 0, serverErrors: 0 };
    expect(await store.usage({ keyId: record.id })).toEqual([
      { day: '2026-11-27', keyId: record.id, plan: 'free', operationId: 'createPet', ...zero, served: 1, clientErrors: 1 },
      { day: '2026-11-27', keyId: record.id, plan: 'free', operationId: 'getPet', ...zero, clientErrors: 1 },
      { day: '2026-11-27', keyId: record.id, plan: 'free', operationId: 'listPets', ...zero, served: 2 },
      { day: '2026-11-27', keyId: record.id, plan: 'free', operationId: 'unmatched', ...zero, clientErrors: 1 },
    ]);
  });

  it('counts 429s and bans apart', async () => {
    const { key, record } = await store.apiKeys.create({ plan: 'enterprise', limits: { perMinute: 2, perDay: 100 } });
    const codes: string[] = [];
    for (let i = 0; i < 6; i++) {
      await store.listPets({}, { apiKey: key }).then(
        () => codes.push('ok'),
        (error: PetStoreError) => codes.push(error.code),
      );
    }
    expect(codes).toEqual(['ok', 'ok', 'rate_limited', 'rate_limited', 'api_key_banned', 'api_key_banned']);
    const [row] = await store.usage({ keyId: record.id });
    expect(row).toMatchObject({ plan: 'enterprise', operationId: 'listPets', served: 2, rateLimited: 2, banned: 2 });
  });

  it("counts the calls of a batch refused after its first 429 as 429s, without spending the key's windows", async () => {
    const { key, record } = await store.apiKeys.create({ plan: 'free' });
    await store.meter({ apiKey: key }, 40, { refusedWith: new PetStoreError('rate_limited') });
    expect(await store.usage({ keyId: record.id })).toEqual([
      expect.objectContaining({ operationId: 'unmatched', rateLimited: 40, clientErrors: 0 }),
    ]);
    const { meta } = await store.listPets({}, { apiKey: key });
    expect(meta.rateLimit?.[0]).toMatchObject({ name: 'minute', remaining: 59 });
  });

  it('keeps host principals under their own id, and leaves requests without a valid key out', async () => {
    const before = await store.usage();
    await store.listPets({}, { principal: { id: 'tenant:42', plan: 'pro' } });
    await store.listPets({}, { apiKey: 'psk_not-a-real-key-at-all-000000' }).catch(() => {});
    await store.listPets({}, {}).catch(() => {});
    const after = await store.usage();
    expect(after.length).toBe(before.length + 1);
    expect(await store.usage({ principalId: 'tenant:42' })).toEqual([
      expect.objectContaining({ principalId: 'tenant:42', plan: 'pro', operationId: 'listPets', served: 1 }),
    ]);
    expect(await store.usage({ plan: 'pro' })).toHaveLength(1);
  });

  it('answers by UTC day, and deletes the days past its retention', async () => {
    const { key, record } = await store.apiKeys.create({ plan: 'free' });
    const start = clock.at;
    try {
      for (const day of [0, 1, 2, 3]) {
        clock.at = start + day * DAY_MS;
        await store.listPets({}, { apiKey: key });
        await store.usage();
      }
      // Three days kept: the first went when the fourth was written.
      const days = (await store.usage({ keyId: record.id })).map((row) => row.day);
      expect(days).toEqual(['2026-11-28', '2026-11-29', '2026-11-30']);
      expect((await store.usage({ keyId: record.id, from: '2026-11-29', to: '2026-11-29' })).map((row) => row.day)).toEqual([
        '2026-11-29',
      ]);
      await expect(store.usage({ from: '29-11-2026' })).rejects.toThrow(/YYYY-MM-DD/);
    } finally {
      clock.at = start;
    }
  });

  // Last: it breaks the database's pets table for good.
  it('counts a server error under the key that got it', async () => {
    const { key, record } = await store.apiKeys.create({ plan: 'free' });
    await dropPets();
    const failure = await store.getPet({ petId: 1 }, { apiKey: key }).catch((error: PetStoreError) => error);
    expect(failure).toMatchObject({ status: 500, code: 'internal_error' });
    expect(await store.usage({ keyId: record.id })).toEqual([
      expect.objectContaining({ operationId: 'getPet', served: 0, serverErrors: 1 }),
    ]);
  });
});

describe.each(testDatabases)('the usage ledger alone on $name', (database) => {
  it("finds each row again after a flush, a new plan and a new day, and adds to it", async () => {
    const opened = await database.open();
    const clock: Clock & { at: number } = { at: Date.parse('2026-11-27T23:59:59Z'), now: () => clock.at };
    const ledger = createUsageLedger({ db: opened.db, clock, flushEveryMs: 60_000 });
    try {
      ledger.record({ keyId: 1 }, 'free', 'listPets', 'served');
      ledger.record({ principalId: '1' }, 'free', 'listPets', 'served');
      await ledger.flush();
      ledger.record({ keyId: 1 }, 'free', 'listPets', 'served', 2);
      // The key's plan changed (an upgrade): its row of today is another one.
      ledger.record({ keyId: 1 }, 'pro', 'listPets', 'rateLimited');
      ledger.record({ keyId: 1 }, 'free', 'listPets', 'clientErrors');
      clock.at += 1_000;
      ledger.record({ keyId: 1 }, 'pro', 'listPets', 'served');
      const zero = { served: 0, unmetered: 0, rateLimited: 0, banned: 0, clientErrors: 0, serverErrors: 0 };
      expect(await ledger.query()).toEqual([
        { day: '2026-11-27', keyId: 1, plan: 'free', operationId: 'listPets', ...zero, served: 3, clientErrors: 1 },
        { day: '2026-11-27', keyId: 1, plan: 'pro', operationId: 'listPets', ...zero, rateLimited: 1 },
        { day: '2026-11-27', principalId: '1', plan: 'free', operationId: 'listPets', ...zero, served: 1 },
        { day: '2026-11-28', keyId: 1, plan: 'pro', operationId: 'listPets', ...zero, served: 1 },
      ]);
    } finally {
      await ledger.close();
      await opened.close();
    }
  });
});
