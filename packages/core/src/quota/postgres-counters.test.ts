import { openDatabase, type OpenDatabase } from '@petstore/testing';
import { databaseUrl, openTwoInstances, refusal, scratchPostgres } from '@petstore/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  createQuota,
  migrateToLatest,
  plans,
  unavailableDependency,
  type ApiKeyRecord,
  type Clock,
} from '../index.js';

const clock: Clock = { now: () => Date.parse('2026-11-21T12:00:00Z') };
const freeKey = (id: number): ApiKeyRecord => ({
  id,
  label: null,
  plan: 'free',
  limits: plans.free,
  createdAt: new Date(0),
  lastUsedAt: null,
  revokedAt: null,
});

describe('the quota on a database it cannot use', () => {
  it('answers unavailable, never a free pass, when PostgreSQL cannot be reached', async () => {
    const database = await openDatabase({ databaseUrl: 'postgres://postgres:postgres@127.0.0.1:1/petstore' });
    const quota = createQuota({ store: 'postgres', pool: database.pool!, clock });
    try {
      const error = await refusal(quota.consumeKey(freeKey(1)));
      expect(error.code).toBe('unavailable');
      expect(error.status).toBe(503);
      expect(unavailableDependency(error)).toBe('database');
      expect(database.isUnavailable(error.cause)).toBe(true);
      expect((await refusal(quota.consumeAddress('203.0.113.5'))).code).toBe('unavailable');
    } finally {
      await quota.close();
      await database.close();
    }
  });

  it('answers unavailable once its pool has ended', async () => {
    const database = await openDatabase({ databaseUrl: 'postgres://postgres:postgres@127.0.0.1:1/petstore' });
    const quota = createQuota({ store: 'postgres', pool: database.pool!, clock });
    await database.pool!.end();
    const error = await refusal(quota.consumeKey(freeKey(1)));
    expect(error.code).toBe('unavailable');
    expect(database.isUnavailable(error.cause)).toBe(true);
    await quota.close();
  });
});

describe.skipIf(!databaseUrl)('the quota on PostgreSQL', () => {
  let first: OpenDatabase;
  let second: OpenDatabase;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ first, second, close } = await openTwoInstances());
  });
  afterAll(() => close?.());

  it('lets exactly 60 of 75 concurrent requests through when two pools share one database', async () => {
    const a = createQuota({ store: 'postgres', pool: first.pool!, clock });
    const b = createQuota({ store: 'postgres', pool: second.pool!, clock });
    const key = freeKey(100);
    const results = await Promise.allSettled(Array.from({ length: 75 }, (_, i) => (i % 2 ? a : b).consumeKey(key)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(60);
    await Promise.all([a.close(), b.close()]);
  });

  it('refuses a valid key from an address another instance found over its limit, within one second', async () => {
    const moving: Clock & { at: number } = { at: clock.now(), now: () => moving.at };
    const a = createQuota({ store: 'postgres', pool: first.pool!, clock: moving });
    const b = createQuota({ store: 'postgres', pool: second.pool!, clock: moving });
    const address = '203.0.113.77';
    await b.checkAddress(address);
    for (let i = 0; i < 60; i++) await a.consumeAddress(address);
    await expect(a.checkAddress(address)).rejects.toMatchObject({ code: 'rate_limited' });
    await b.checkAddress(address); // what b read a moment ago still stands
    moving.at += 1_000;
    const error = await refusal(b.checkAddress(address));
    expect(error.code).toBe('rate_limited');
    expect(error.meta.rateLimit).toMatchObject([{ name: 'address', remaining: 0 }]);
    await Promise.all([a.close(), b.close()]);
  });

  it('refuses a key another instance banned within one second, and at once on the instance that banned it', async () => {
    const moving: Clock & { at: number } = { at: clock.now() + 20 * 60_000, now: () => moving.at };
    const a = createQuota({ store: 'postgres', pool: first.pool!, clock: moving });
    const b = createQuota({ store: 'postgres', pool: second.pool!, clock: moving });
    const key = freeKey(103);
    await b.consumeKey(key); // b has now read that the key is not banned
    await Promise.allSettled(Array.from({ length: 71 }, () => a.consumeKey(key)));
    expect((await refusal(a.consumeKey(key))).code).toBe('api_key_banned');
    moving.at += 1_000;
    expect((await refusal(b.consumeKey(key))).code).toBe('api_key_banned');
    await Promise.all([a.close(), b.close()]);
  });

  it('shares a ban between instances', async () => {
    const a = createQuota({ store: 'postgres', pool: first.pool!, clock });
    const later: Clock = { now: () => clock.now() + 5 * 60_000 };
    const b = createQuota({ store: 'postgres', pool: second.pool!, clock: later });
    const key = freeKey(101);
    await Promise.allSettled(Array.from({ length: 71 }, () => a.consumeKey(key)));
    const error = await refusal(b.consumeKey(key));
    expect(error.code).toBe('api_key_banned');
    expect(error.meta.retryAfter).toBe(600);
    await Promise.all([a.close(), b.close()]);
  });

  it('deletes expired rows and keeps live ones', async () => {
    const quota = createQuota({ store: 'postgres', pool: first.pool!, clock });
    await first.pool!.query(`insert into rate_limits (key, points, expire) values ('m:1:1', 3, $1), ('d:1:1', 9, $2)`, [
      Date.now() - 1000,
      Date.now() - 86_400_000,
    ]);
    await quota.consumeKey(freeKey(102));
    expect(await quota.clearExpired()).toBe(2);
    const { rows } = await first.pool!.query<{ key: string }>(
      `select key from rate_limits where key like '%:102:%' or key like '%:1:1'`,
    );
    expect(rows.map((r) => r.key).sort()).toEqual([
      `d:102:${Math.floor(clock.now() / 86_400_000)}`,
      `m:102:${Math.floor(clock.now() / 60_000)}`,
    ]);
    await quota.close();
  });

  it('deletes expired rows on its own timer until closed', async () => {
    const quota = createQuota({ store: 'postgres', pool: first.pool!, clock, clearExpiredEverySeconds: 1 });
    await first.pool!.query(`insert into rate_limits (key, points, expire) values ('m:2:1', 3, $1)`, [
      Date.now() - 1000,
    ]);
    await vi.waitFor(
      async () => expect((await first.pool!.query(`select 1 from rate_limits where key = 'm:2:1'`)).rowCount).toBe(0),
      { timeout: 5000, interval: 100 },
    );
    await quota.close();
  });

  it('never creates its table at run time: on a database never migrated it fails as a fault (500, 42P01)', async () => {
    const scratch = await scratchPostgres();
    const bare = await openDatabase({ databaseUrl: scratch.url });
    try {
      const quota = createQuota({ store: 'postgres', pool: bare.pool!, clock });
      const error = await refusal(quota.consumeKey(freeKey(1)));
      expect(error.code).toBe('internal_error');
      expect(error.cause).toMatchObject({ code: '42P01' });
      const { rows } = await bare.pool!.query(`select to_regclass('rate_limits') as table`);
      expect(rows[0]?.['table']).toBeNull();
      await quota.close();
      await migrateToLatest(bare.db);
      const migrated = createQuota({ store: 'postgres', pool: bare.pool!, clock });
      await expect(migrated.consumeKey(freeKey(1))).resolves.toHaveLength(2);
      await migrated.close();
    } finally {
      await bare.close();
      await scratch.drop();
    }
  });
});
