import { refusal, testDatabases, type OpenDatabase } from '@petstore/testing';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createQuota, plans, type ApiKeyRecord, type ClosableQuota, type Limits, type PlanName } from '../index.js';
import { createKeptCounters, type KeptCounters } from './kept-counters.js';

const keyOn = (id: number, plan: PlanName, limits: Limits = plans[plan]): ApiKeyRecord => ({
  id,
  label: null,
  plan,
  limits,
  createdAt: new Date(0),
  lastUsedAt: null,
  revokedAt: null,
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(testDatabases)('memory counters kept in the database, on $name', ({ open }) => {
  let database: OpenDatabase;
  const closing: { close(): Promise<unknown> }[] = [];
  beforeEach(async () => {
    database = await open();
  });
  afterEach(async () => {
    for (const item of closing.splice(0)) await item.close().catch(() => {});
    await database.close();
  });

  const quotaOn = async () => {
    const clock = { now: () => Date.parse('2026-11-21T12:00:15Z') };
    const quota: ClosableQuota = createQuota({ store: 'memory', clock, keep: { db: database.db } });
    closing.push(quota);
    await quota.ready();
    return quota;
  };

  it('keeps a key\'s minute and day, a ban, an address\'s minute and the keys known at an address across a restart', async () => {
    const free = keyOn(1, 'free');
    const banned = keyOn(2, 'enterprise', { perMinute: 2, perDay: 1_000 });
    const before = await quotaOn();
    for (let i = 0; i < 7; i++) await before.consumeKey(free);
    // Two fit, then ten more after the refusal, and the next one is banned.
    for (let i = 0; i < 12; i++) await before.consumeKey(banned).catch(() => {});
    expect((await refusal(before.consumeKey(banned))).code).toBe('api_key_banned');
    for (let i = 0; i < 3; i++) await before.consumeAddress('198.51.100.7');
    before.tokenSucceeded('psk_free_known_token_0000000000', '203.0.113.5');
    await before.close();

    const after = await quotaOn();
    const [minute, day] = await after.consumeKey(free);
    expect({ minute: minute!.remaining, day: day!.remaining }).toEqual({ minute: 52, day: 992 });
    expect((await refusal(after.consumeKey(banned))).code).toBe('api_key_banned');
    expect((await after.consumeAddress('198.51.100.7'))[0]!.remaining).toBe(56);
    expect(await after.knowsToken('psk_free_known_token_0000000000', '203.0.113.5')).toBe(true);
    expect(await after.knowsToken('psk_free_known_token_0000000000', '203.0.113.6')).toBe(false);
  });

  it('writes what changed every saveEveryMs, so a process that ends without closing loses at most that', async () => {
    const killed: KeptCounters = createKeptCounters({ db: database.db, saveEveryMs: 50 });
    closing.push(killed);
    await killed.ready;
    for (let i = 0; i < 3; i++) await killed.increment('m:1:100', 300);
    await killed.incrementWindows({ key: 'm:2:100', seconds: 300 }, { key: 'd:2:10', seconds: 172_800 }, 1, 60);
    await sleep(300);
    // Another process on the folder, the first never closed (as after kill -9).
    const next = createKeptCounters({ db: database.db });
    closing.push(next);
    expect(await Promise.all(['m:1:100', 'm:2:100', 'd:2:10'].map((key) => next.read(key)))).toEqual([3, 1, 1]);
    // Once written, a counter is not written again until it changes: one row per counter, one statement per save.
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from rate_limits`.execute(database.db);
    expect(rows[0]!.n).toBe(3);
  });

  it('answers calls made before the saved counters are read only once they are, and keeps their expiry', async () => {
    const first = createKeptCounters({ db: database.db });
    closing.push(first);
    await first.write('b:9', 123, 2);
    await first.close();
    const second = createKeptCounters({ db: database.db });
    closing.push(second);
    // Not awaited: the count must continue from the saved one.
    expect(await second.increment('b:9', 2)).toBe(124);
    await sleep(2_200);
    expect(await second.read('b:9')).toBeUndefined();
  });

  it('brings back no expired counter, and deletes its row', async () => {
    await sql`insert into rate_limits (key, points, expire) values ('m:3:1', 9, ${Date.now() - 1_000}), ('m:3:2', 4, ${Date.now() + 60_000})`.execute(database.db);
    const counters = createKeptCounters({ db: database.db });
    closing.push(counters);
    await counters.ready;
    expect(await counters.read('m:3:1')).toBeUndefined();
    expect(await counters.read('m:3:2')).toBe(4);
    const { rows } = await sql<{ key: string }>`select key from rate_limits order by key`.execute(database.db);
    expect(rows.map((row) => row.key)).toEqual(['m:3:2']);
  });
});
