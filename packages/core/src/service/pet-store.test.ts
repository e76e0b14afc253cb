import { refusal, testDatabases } from '@petstore/testing';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPetStore, operations, PetStoreError, type Clock, type OperationId, type PetStore } from '../index.js';

describe.each(testDatabases)('the pet store on $name', (database) => {
  let close: () => Promise<void>;
  let store: PetStore;
  let apiKey: string;
  const clock: Clock & { at: number } = { at: Date.parse('2026-11-21T12:00:00Z'), now: () => clock.at };

  beforeAll(async () => {
    const opened = await database.open();
    close = opened.close;
    store = createPetStore({ db: opened.db, clock });
    apiKey = (await store.apiKeys.create({ plan: 'free', label: 'test' })).key;
  });
  afterAll(() => close());

  it('creates an animal with status available by default and reads it back', async () => {
    const created = await store.createPet({ name: 'Rex', categoryId: 3 }, { apiKey });
    expect(created.data).toEqual({ id: expect.any(Number), name: 'Rex', categoryId: 3, status: 'available' });
    const read = await store.getPet({ petId: created.data.id }, { apiKey });
    expect(read.data).toEqual(created.data);
    expect(read.meta.deprecation?.sunset.toISOString()).toBe('2030-12-05T00:00:00.000Z');
  });

  it('assigns increasing ids that are numbers, not strings', async () => {
    const a = await store.createPet({ name: 'A', categoryId: 9007199254740991, status: 'sold' }, { apiKey });
    const b = await store.createPet({ name: 'B', categoryId: 1 }, { apiKey });
    expect(typeof a.data.id).toBe('number');
    expect(a.data.categoryId).toBe(9007199254740991);
    expect(b.data.id).toBeGreaterThan(a.data.id);
  });

  it('stores a name exactly as sent', async () => {
    const name = '  Fluffy 🐈 the Ⅲ  ';
    const created = await store.createPet({ name, categoryId: 2 }, { apiKey });
    expect((await store.getPet({ petId: created.data.id }, { apiKey })).data.name).toBe(name);
  });

  it('pages through animals in ascending id order with a cursor, filtered by status', async () => {
    for (let i = 0; i < 5; i++) await store.createPet({ name: `p${i}`, categoryId: 1, status: 'pending' }, { apiKey });
    const first = await store.listPets({ limit: 3, status: 'pending' }, { apiKey });
    expect(first.data).toHaveLength(3);
    expect(first.meta.nextCursor).toBeTypeOf('string');
    const second = await store.listPets({ limit: 3, status: 'pending', cursor: first.meta.nextCursor }, { apiKey });
    expect(second.data.map((p) => p.name)).toEqual(['p3', 'p4']);
    expect(second.meta.nextCursor).toBeUndefined();
    const ids = [...first.data, ...second.data].map((p) => p.id);
    expect(ids).toEqual([...ids].sort((x, y) => x - y));
    expect([...first.data, ...second.data].every((p) => p.status === 'pending')).toBe(true);
  });

  it('lists 20 animals when no limit is given', async () => {
    for (let i = 0; i < 25; i++) await store.createPet({ name: `bulk${i}`, categoryId: 1 }, { apiKey });
    expect((await store.listPets({}, { apiKey })).data).toHaveLength(20);
  });

  it('answers 404 not_found for an unknown id', async () => {
    const error = await refusal(store.getPet({ petId: 999_999 }, { apiKey }));
    expect(error.toBody()).toMatchObject({ code: 'not_found', status: 404 });
  });

  it('answers 400 invalid_request listing every failing field', async () => {
    const error = await refusal(store.createPet({ name: '', categoryId: '5', id: 1 } as never, { apiKey }));
    expect(error.status).toBe(400);
    expect(error.code).toBe('invalid_request');
    expect(error.details?.map((d) => d.path).sort()).toEqual(['categoryId', 'id', 'name']);
  });

  it('rejects a cursor it did not issue', async () => {
    const error = await refusal(store.listPets({ cursor: 'bm90LWEtY3Vyc29y' }, { apiKey }));
    expect(error.code).toBe('invalid_request');
    expect(error.details?.[0]?.path).toBe('cursor');
  });

  it('refuses a missing key and an unknown key with 401', async () => {
    expect((await refusal(store.listPets({}, {}))).code).toBe('missing_api_key');
    expect((await refusal(store.listPets({}, { apiKey: 'x'.repeat(20) }))).code).toBe('invalid_api_key');
    const mistyped = apiKey.slice(0, -1) + (apiKey.endsWith('Z') ? 'Y' : 'Z');
    expect((await refusal(store.listPets({}, { apiKey: mistyped }))).code).toBe('invalid_api_key');
  });

  it('refuses a revoked key within one second', async () => {
    const { key, record } = await store.apiKeys.create({ plan: 'pro' });
    await store.listPets({}, { apiKey: key });
    expect(await store.apiKeys.revoke(record.id)).toBe(true);
    clock.at += 1000;
    expect((await refusal(store.listPets({}, { apiKey: key }))).code).toBe('invalid_api_key');
  });

  it('has a method for every operation, named by its id, that runs that operation through the one entry', async () => {
    const { key, record } = await store.apiKeys.create({ plan: 'pro', label: 'methods' });
    for (const id of Object.keys(operations) as OperationId[]) {
      const method = store[id] as (input: unknown, context: object) => Promise<unknown>;
      expect(method, id).toBeTypeOf('function');
      expect((await refusal(method({}, {}))).code, id).toBe('missing_api_key');
      // An unknown field is refused by this operation's own schema, once its key was verified.
      const invalid = await refusal(method({ notAField: 1 }, { apiKey: key }));
      expect(invalid.details?.map((d) => d.path), id).toContain('notAField');
      expect(invalid.meta.keyId, id).toBe(record.id);
    }
  });

  it('answers 410 gone on getPet from the sunset on, with the deprecation headers kept', async () => {
    const pet = (await store.createPet({ name: 'Old', categoryId: 1 }, { apiKey })).data;
    const saved = clock.at;
    clock.at = Date.parse('2030-12-04T23:59:59Z');
    expect((await store.getPet({ petId: pet.id }, { apiKey })).data.id).toBe(pet.id);
    clock.at = Date.parse('2030-12-05T00:00:00Z');
    const error = await refusal(store.getPet({ petId: pet.id }, { apiKey }));
    expect(error.toBody()).toMatchObject({ code: 'gone', status: 410 });
    expect(error.meta.deprecation).toBeDefined();
    clock.at = saved;
  });
});

describe.each(testDatabases)('ids on $name', (database) => {
  it('assigns ids up to 2^53-1 exactly and never above', async () => {
    const opened = await database.open();
    try {
      const store = createPetStore({ db: opened.db });
      const { key: apiKey } = await store.apiKeys.create({ plan: 'pro' });
      await sql`alter table pets alter column id restart with 9007199254740990`.execute(opened.db);
      expect((await store.createPet({ name: 'Last but one', categoryId: 1 }, { apiKey })).data.id).toBe(9007199254740990);
      expect((await store.createPet({ name: 'Last', categoryId: 1 }, { apiKey })).data.id).toBe(Number.MAX_SAFE_INTEGER);
      const beyond = await store.createPet({ name: 'Beyond', categoryId: 1 }, { apiKey }).catch((e: unknown) => e);
      expect(beyond).toBeInstanceOf(PetStoreError);
      expect((beyond as PetStoreError).toBody()).toEqual({ code: 'internal_error', message: 'An internal error occurred.', status: 500 });
      const listed = (await store.listPets({ limit: 100 }, { apiKey })).data.map((p) => p.id);
      expect(Math.max(...listed)).toBe(Number.MAX_SAFE_INTEGER);
    } finally {
      await opened.close();
    }
  });
});
