import { testDatabases } from '@petstore/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPetStore, type Clock, type PetStore } from '../index.js';

describe.each(testDatabases)('the deprecated-operation inventory on $name', (database) => {
  let close: () => Promise<void>;
  let store: PetStore;
  let count: () => Promise<number>;
  const clock: Clock & { at: number } = { at: Date.parse('2026-11-21T12:00:00Z'), now: () => clock.at };

  beforeAll(async () => {
    const opened = await database.open();
    store = createPetStore({ db: opened.db, clock });
    count = async () => (await opened.db.selectFrom('deprecated_calls').selectAll().execute()).length;
    close = async () => {
      await store.close();
      await opened.close();
    };
  });
  afterAll(() => close());

  it('counts each key\'s calls of deprecated operations in memory, and writes them in one batch', async () => {
    const { key: old, record: oldKey } = await store.apiKeys.create({ plan: 'free', label: 'old client' });
    const { key: current } = await store.apiKeys.create({ plan: 'free', label: 'current client' });
    const pet = (await store.createPet({ name: 'Rex', categoryId: 1 }, { apiKey: current })).data;
    for (let i = 0; i < 3; i++) {
      clock.at += 1_000;
      await store.getPet({ petId: pet.id }, { apiKey: old });
    }
    await store.listPets({}, { apiKey: current });
    await store.getPet({ petId: 987_654 }, { apiKey: old }).catch(() => {});
    expect(await count()).toBe(0);
    expect(await store.deprecatedUsage()).toEqual([
      { keyId: oldKey.id, label: 'old client', operationId: 'getPet', calls: 4, lastCalledAt: new Date(clock.at) },
    ]);
    expect(await count()).toBe(1);
  });

  it('adds later calls to the stored counts, including calls after the sunset', async () => {
    const { key, record } = await store.apiKeys.create({ plan: 'free', label: 'late client' });
    await store.getPet({ petId: 1 }, { apiKey: key }).catch(() => {});
    await store.deprecatedUsage();
    const saved = clock.at;
    clock.at = Date.parse('2030-12-06T00:00:00Z');
    try {
      await store.getPet({ petId: 1 }, { apiKey: key }).catch(() => {});
      const usage = (await store.deprecatedUsage()).find((u) => u.keyId === record.id);
      expect(usage).toMatchObject({ calls: 2, lastCalledAt: new Date(clock.at) });
    } finally {
      clock.at = saved;
    }
  });

  it('counts nothing for requests without a valid key', async () => {
    const before = (await store.deprecatedUsage()).reduce((sum, u) => sum + u.calls, 0);
    await store.getPet({ petId: 1 }, { apiKey: 'made-up-key-0123456789' }).catch(() => {});
    await store.getPet({ petId: 1 }, {}).catch(() => {});
    expect((await store.deprecatedUsage()).reduce((sum, u) => sum + u.calls, 0)).toBe(before);
  });
});
