import { refusal, testDatabases } from '@petstore/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  createPetStore,
  createQuota,
  type Clock,
  type Database,
  type PetStore,
} from '../index.js';
import type { Kysely } from 'kysely';

describe.each(testDatabases)('Idempotency-Key on createPet on $name', (database) => {
  let close: () => Promise<void>;
  let db: Kysely<Database>;
  let store: PetStore;
  let apiKey: string;
  let apiKeyId: number;
  const start = Date.parse('2026-11-21T12:00:00Z');
  const clock: Clock & { at: number } = { at: start, now: () => clock.at };
  let serial = 0;
  const unique = (label: string) => `${label}-${++serial}`;

  beforeAll(async () => {
    const opened = await database.open();
    close = opened.close;
    db = opened.db;
    store = createPetStore({ db, clock });
    ({
      key: apiKey,
      record: { id: apiKeyId },
    } = await store.apiKeys.create({ plan: 'free' }));
  });
  afterAll(() => close());
  afterEach(() => {
    clock.at = start;
  });

  const petsNamed = async (name: string) =>
    Number(
      (
        await db
          .selectFrom('pets')
          .select((eb) => eb.fn.countAll<number | string>().as('n'))
          .where('name', '=', name)
          .executeTakeFirstOrThrow()
      ).n,
    );
  const entries = async (key: string, id = apiKeyId) =>
    db.selectFrom('idempotency_keys').selectAll().where('api_key_id', '=', id).where('key', '=', key).execute();

  it('replays the first response with the same id, 201 and replayed, and creates no second animal', async () => {
    const name = unique('Rex');
    const idempotencyKey = unique('key');
    const first = await store.createPet({ name, categoryId: 3 }, { apiKey, idempotencyKey });
    const again = await store.createPet({ name, categoryId: 3 }, { apiKey, idempotencyKey });
    expect(first.meta.replayed).toBeUndefined();
    expect(again).toMatchObject({ data: first.data, meta: { replayed: true } });
    expect(Object.keys(again.data)).toEqual(Object.keys(first.data));
    expect(await petsNamed(name)).toBe(1);
  });

  it('replays across pet store instances, as after a restart', async () => {
    const name = unique('Restart');
    const idempotencyKey = unique('key');
    const first = await store.createPet({ name, categoryId: 1 }, { apiKey, idempotencyKey });
    const restarted = createPetStore({ db, clock });
    const again = await restarted.createPet({ name, categoryId: 1 }, { apiKey, idempotencyKey });
    expect(again.data).toEqual(first.data);
    expect(again.meta.replayed).toBe(true);
    expect(await petsNamed(name)).toBe(1);
  });

  it('answers 409 idempotency_key_reused when the same key comes with another body', async () => {
    const name = unique('Max');
    const idempotencyKey = unique('key');
    await store.createPet({ name, categoryId: 1 }, { apiKey, idempotencyKey });
    const error = await refusal(store.createPet({ name, categoryId: 2 }, { apiKey, idempotencyKey }));
    expect(error.toBody()).toMatchObject({ code: 'idempotency_key_reused', status: 409 });
    expect(error.message).toMatch(/different request/);
    expect(await petsNamed(name)).toBe(1);
  });

  it('treats bodies with the same fields in another order as the same request', async () => {
    const name = unique('Order');
    const idempotencyKey = unique('key');
    const first = await store.call('createPet', () => ({ categoryId: 1, name }), { apiKey, idempotencyKey });
    const again = await store.call('createPet', () => ({ name, categoryId: 1 }), { apiKey, idempotencyKey });
    expect(again.data).toEqual(first.data);
    expect(again.meta.replayed).toBe(true);
  });

  it('treats an omitted status and an explicit "available" as the same request, but not "sold"', async () => {
    const name = unique('Default');
    const idempotencyKey = unique('key');
    const first = await store.createPet({ name, categoryId: 1 }, { apiKey, idempotencyKey });
    const explicit = await store.createPet({ name, categoryId: 1, status: 'available' }, { apiKey, idempotencyKey });
    expect(explicit.data).toEqual(first.data);
    expect(explicit.meta.replayed).toBe(true);
    const sold = await refusal(store.createPet({ name, categoryId: 1, status: 'sold' }, { apiKey, idempotencyKey }));
    expect(sold.code).toBe('idempotency_key_reused');
  });

  it('creates exactly one animal when identical requests race, answering the others with a replay or 409', async () => {
    const name = unique('Race');
    const idempotencyKey = unique('key');
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, () => store.createPet({ name, categoryId: 1 }, { apiKey, idempotencyKey })),
    );
    expect(await petsNamed(name)).toBe(1);
    const created = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    expect(created.filter((o) => !o.meta.replayed)).toHaveLength(1);
    expect(new Set(created.map((o) => o.data.id)).size).toBe(1);
    for (const r of results) {
      if (r.status === 'rejected') {
        expect(r.reason).toMatchObject({ code: 'idempotency_key_reused', status: 409, meta: { retryAfter: 1 } });
        expect((r.reason as Error).message).toMatch(/still in progress/);
      }
    }
  });

  it('keeps the same idempotency key of different API keys apart', async () => {
    const { key: other } = await store.apiKeys.create({ plan: 'free' });
    const idempotencyKey = unique('key');
    const name = unique('Shared');
    const mine = await store.createPet({ name, categoryId: 1 }, { apiKey, idempotencyKey });
    const theirs = await store.createPet({ name, categoryId: 1 }, { apiKey: other, idempotencyKey });
    const theirsWithOtherBody = await store.createPet({ name, categoryId: 1 }, { apiKey: other, idempotencyKey });
    expect(theirs.data.id).not.toBe(mine.data.id);
    expect(theirs.meta.replayed).toBeUndefined();
    expect(theirsWithOtherBody.meta.replayed).toBe(true);
    expect(await petsNamed(name)).toBe(2);
  });

  it('answers 400 invalid_request at Idempotency-Key for an empty, too long or non-ASCII key and stores nothing', async () => {
    const name = unique('BadKey');
    for (const idempotencyKey of ['', 'k'.repeat(256), 'has space', 'clé']) {
      const error = await refusal(store.createPet({ name, categoryId: 1 }, { apiKey, idempotencyKey }));
      expect(error.toBody()).toMatchObject({ code: 'invalid_request', status: 400 });
      expect(error.details).toEqual([{ path: 'Idempotency-Key', message: expect.any(String) }]);
      expect(await entries(idempotencyKey)).toHaveLength(0);
    }
    expect(await petsNamed(name)).toBe(0);
    const longest = await store.createPet({ name, categoryId: 1 }, { apiKey, idempotencyKey: '~'.repeat(255) });
    expect(longest.data.name).toBe(name);
  });

  it('lists a bad body and a bad key in one 400', async () => {
    const error = await refusal(store.createPet({ name: '', categoryId: 1 }, { apiKey, idempotencyKey: '' }));
    expect(error.details?.map((d) => d.path)).toEqual(['name', 'Idempotency-Key']);
    expect(error.message).toBe('Invalid value for: name, Idempotency-Key.');
  });

  it('stores nothing for a body refused by validation, so a corrected retry under the key is a first request', async () => {
    const name = unique('Fixed');
    const idempotencyKey = unique('key');
    expect((await refusal(store.createPet({ name, categoryId: 0 }, { apiKey, idempotencyKey }))).status).toBe(400);
    expect(await entries(idempotencyKey)).toHaveLength(0);
    const fixed = await store.createPet({ name, categoryId: 1 }, { apiKey, idempotencyKey });
    expect(fixed.data.name).toBe(name);
    expect(fixed.meta.replayed).toBeUndefined();
  });

  it('stores nothing for a request the rate limiter refuses', async () => {
    const quota = createQuota({ store: 'memory', clock });
    const limited = createPetStore({ db, clock, quota });
    const { key, record } = await limited.apiKeys.create({ plan: 'free' });
    for (let i = 0; i < 60; i++) await limited.listPets({ limit: 1 }, { apiKey: key });
    const name = unique('Limited');
    const idempotencyKey = unique('key');
    const error = await refusal(limited.createPet({ name, categoryId: 1 }, { apiKey: key, idempotencyKey }));
    expect(error.code).toBe('rate_limited');
    expect(await entries(idempotencyKey, record.id)).toHaveLength(0);
    expect(await petsNamed(name)).toBe(0);
    await quota.close();
  });

  it('ignores an Idempotency-Key on reads', async () => {
    // An empty key would be 400 on a create; a read neither checks nor records it.
    const outcome = await store.listPets({ limit: 1 }, { apiKey, idempotencyKey: '' });
    expect(Array.isArray(outcome.data)).toBe(true);
    expect(outcome.meta.replayed).toBeUndefined();
  });

  it('replays for exactly 24 hours, then takes the key as new', async () => {
    const name = unique('Day');
    const idempotencyKey = unique('key');
    const first = await store.createPet({ name, categoryId: 1 }, { apiKey, idempotencyKey });
    clock.at += 24 * 60 * 60 * 1000;
    expect((await store.createPet({ name, categoryId: 1 }, { apiKey, idempotencyKey })).meta.replayed).toBe(true);
    clock.at += 1;
    const anew = await store.createPet({ name, categoryId: 2 }, { apiKey, idempotencyKey });
    expect(anew.meta.replayed).toBeUndefined();
    expect(anew.data.id).not.toBe(first.data.id);
    expect(await petsNamed(name)).toBe(2);
    const [entry] = await entries(idempotencyKey);
    expect(entry?.created_at.getTime()).toBe(clock.at);
    expect(entry?.response_body).toEqual(anew.data);
  });

  it('deletes entries older than 24 hours on a later write', async () => {
    const fresh = createPetStore({ db, clock });
    const idempotencyKey = unique('key');
    await fresh.createPet({ name: unique('Old'), categoryId: 1 }, { apiKey, idempotencyKey });
    clock.at += 24 * 60 * 60 * 1000 + 1;
    await fresh.createPet({ name: unique('Sweep'), categoryId: 1 }, { apiKey, idempotencyKey: unique('key') });
    expect(await entries(idempotencyKey)).toHaveLength(0);
  });
});
