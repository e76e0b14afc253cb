import { randomUUID } from 'node:crypto';
import type { OpenDatabase } from '@petstore/testing';
import { databaseUrl, openTwoInstances, testDatabases } from '@petstore/testing';
import type { Kysely } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  createIdempotencyStore,
  createPetStore,
  PetStoreError,
  type Clock,
  type Database,
  type IdempotentRequest,
} from '../index.js';
import { requestHash } from './request-hash.js';

const start = Date.parse('2026-11-21T12:00:00Z');

describe.each(testDatabases)('the idempotency store on $name', (database) => {
  let close: () => Promise<void>;
  let db: Kysely<Database>;
  let apiKeyId: number;
  const clock: Clock & { at: number } = { at: start, now: () => clock.at };
  let serial = 0;
  const request = (input: unknown = { name: 'Rex' }): IdempotentRequest => ({
    apiKeyId,
    key: `key-${++serial}`,
    operationId: 'createPet',
    input,
    status: 201,
  });

  beforeAll(async () => {
    const opened = await database.open();
    close = opened.close;
    db = opened.db;
    apiKeyId = (await createPetStore({ db, clock }).apiKeys.create({ plan: 'free' })).record.id;
  });
  afterAll(() => close());
  afterEach(() => {
    clock.at = start;
  });

  const entry = (key: string) =>
    db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('api_key_id', '=', apiKeyId)
      .where('key', '=', key)
      .executeTakeFirst();

  it('releases the claim when the write fails, so a retry runs as a first request', async () => {
    const idempotency = createIdempotencyStore({ db, clock });
    const first = request();
    const failure = new Error('insert failed');
    await expect(idempotency.run(first, async () => Promise.reject(failure))).rejects.toBe(failure);
    expect(await entry(first.key)).toBeUndefined();
    const retry = await idempotency.run(first, async () => ({ id: 7 }));
    expect(retry).toEqual({ data: { id: 7 }, status: 201, replayed: false });
  });

  it('rolls back the write with its failure, leaving no row of it behind', async () => {
    const idempotency = createIdempotencyStore({ db, clock });
    const first = request();
    const name = `rolled-back-${first.key}`;
    await expect(
      idempotency.run(first, async (trx) => {
        await trx.insertInto('pets').values({ name, category_id: 1, status: 'available' }).execute();
        throw new Error('after the insert');
      }),
    ).rejects.toThrow('after the insert');
    expect(await db.selectFrom('pets').select('id').where('name', '=', name).execute()).toHaveLength(0);
  });

  it('answers 409 in progress for a claim without a response, and takes it over once its 30-second lease ends', async () => {
    const idempotency = createIdempotencyStore({ db, clock });
    const first = request();
    const abandoned = {
      api_key_id: apiKeyId,
      key: first.key,
      request_hash: requestHash('createPet', first.input),
      claim: randomUUID(),
      created_at: new Date(clock.at),
    };
    await db.insertInto('idempotency_keys').values(abandoned).execute();
    clock.at += 29_999;
    const error = await idempotency
      .run(first, async () => expect.unreachable('ran while claimed'))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PetStoreError);
    expect(error).toMatchObject({ code: 'idempotency_key_reused', status: 409, meta: { retryAfter: 1 } });
    expect((error as Error).message).toMatch(/still in progress/);
    clock.at += 1;
    expect(await idempotency.run(first, async () => ({ id: 2 }))).toEqual({
      data: { id: 2 },
      status: 201,
      replayed: false,
    });
  });

  it('stores a response only for the claim that still owns the key, rolling the write back otherwise', async () => {
    const idempotency = createIdempotencyStore({ db, clock });
    const first = request();
    const name = `taken-over-${first.key}`;
    const error = await idempotency
      .run(first, async (trx) => {
        await trx.insertInto('pets').values({ name, category_id: 1, status: 'available' }).execute();
        await trx.updateTable('idempotency_keys').set({ claim: randomUUID() }).where('key', '=', first.key).execute();
        return { id: 3 };
      })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'idempotency_key_reused', status: 409 });
    expect(await db.selectFrom('pets').select('id').where('name', '=', name).execute()).toHaveLength(0);
  });

  it('deletes entries older than 24 hours and keeps younger ones', async () => {
    const idempotency = createIdempotencyStore({ db, clock });
    const old = request();
    await idempotency.run(old, async () => ({ id: 1 }));
    clock.at += 1000;
    const young = request();
    await idempotency.run(young, async () => ({ id: 2 }));
    clock.at = start + 24 * 60 * 60 * 1000 + 1;
    expect(await idempotency.clearExpired()).toBeGreaterThanOrEqual(1);
    expect(await entry(old.key)).toBeUndefined();
    expect(await entry(young.key)).toBeDefined();
  });
});

describe.skipIf(!databaseUrl)('Idempotency-Key across instances on PostgreSQL', () => {
  let first: OpenDatabase;
  let second: OpenDatabase;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ first, second, close } = await openTwoInstances());
  });
  afterAll(() => close?.());

  it('creates exactly one animal when two instances on two pools race with the same key', async () => {
    const clock: Clock = { now: () => start };
    const a = createPetStore({ db: first.db, clock });
    const b = createPetStore({ db: second.db, clock });
    const { key: apiKey } = await a.apiKeys.create({ plan: 'free' });
    for (let round = 0; round < 5; round++) {
      const name = `Twin-${round}`;
      const idempotencyKey = `race-${round}`;
      const results = await Promise.allSettled(
        Array.from({ length: 10 }, (_, i) =>
          (i % 2 ? a : b).createPet({ name, categoryId: 1 }, { apiKey, idempotencyKey }),
        ),
      );
      const rows = await first.db.selectFrom('pets').select('id').where('name', '=', name).execute();
      expect(rows).toHaveLength(1);
      const created = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
      expect(created.filter((o) => !o.meta.replayed)).toHaveLength(1);
      expect(created.every((o) => o.data.id === Number(rows[0]!.id))).toBe(true);
      for (const r of results) {
        if (r.status === 'rejected') expect(r.reason).toMatchObject({ code: 'idempotency_key_reused', status: 409 });
      }
    }
  });
});
