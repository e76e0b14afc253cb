import { testDatabases } from '@petstore/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPetStore, type Clock, type PetStore } from '../index.js';

describe.each(testDatabases)('list pages served from memory by the store, on $name', (database) => {
  let close: () => Promise<void>;
  let here: PetStore;
  let there: PetStore;
  let apiKey: string;
  const clock: Clock & { at: number } = { at: Date.parse('2026-11-21T12:00:00Z'), now: () => clock.at };

  beforeAll(async () => {
    const opened = await database.open();
    close = opened.close;
    here = createPetStore({ db: opened.db, clock });
    there = createPetStore({ db: opened.db, clock });
    apiKey = (await here.apiKeys.create({ plan: 'business' })).key;
  });
  afterAll(() => close());

  const names = async (store: PetStore) => (await store.listPets({ limit: 100 }, { apiKey })).data.map((p) => p.name);

  it('shows a pet created through this instance in its very next list', async () => {
    await names(here);
    await here.createPet({ name: 'Fresh', categoryId: 1 }, { apiKey });
    expect(await names(here)).toContain('Fresh');
  });

  it('shows a pet created through another instance within one second', async () => {
    const before = await names(here);
    await there.createPet({ name: 'Elsewhere', categoryId: 1 }, { apiKey });
    expect(await names(here)).toEqual(before);
    clock.at += 999;
    expect(await names(here)).toEqual(before);
    clock.at += 1;
    expect(await names(here)).toContain('Elsewhere');
  });

  it('keeps the next-page cursor of a cached page', async () => {
    for (let i = 0; i < 3; i++) await here.createPet({ name: `c${i}`, categoryId: 2, status: 'sold' }, { apiKey });
    const first = await here.listPets({ limit: 2, status: 'sold' }, { apiKey });
    const again = await here.listPets({ limit: 2, status: 'sold' }, { apiKey });
    expect(again.meta.nextCursor).toBe(first.meta.nextCursor);
    expect(again.meta.nextCursor).toBeTypeOf('string');
  });

  it('hands out pages that cannot be changed by the caller', async () => {
    const { data } = await here.listPets({ limit: 5 }, { apiKey });
    expect(() => (data as unknown as { pop(): void }).pop()).toThrow(TypeError);
    expect(() => Object.assign(data[0]!, { name: 'Mutated' })).toThrow(TypeError);
    expect((await here.listPets({ limit: 5 }, { apiKey })).data[0]!.name).not.toBe('Mutated');
  });
});
