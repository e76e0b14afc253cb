import { databaseUrl, openTestRedis, redisUrl, refusal, testDatabases } from '@petstore/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createQuota, type ApiKeyRecord, type Clock, type ClosableQuota, type QuotaStore } from '../index.js';

// The calls of a batch refused together after its first call was refused are counted in one count (`requests`),
// exactly as many requests one after another would be: the same minute, day and ban, on every store. And many
// requests of one key at once past its limit (a batch's calls, a burst from many connections) all read "not banned"
// before the first ban is written: the instance writes it once, not once per request, which on a shared store took
// the pool from everyone else.
const stores: { name: string; open(): Promise<{ config: QuotaStore; close(): Promise<void> }> }[] = [
  { name: 'memory', open: async () => ({ config: { store: 'memory' }, close: async () => {} }) },
  ...(databaseUrl
    ? [
        {
          name: 'postgres',
          async open() {
            const database = await testDatabases.find((d) => d.name === 'postgres')!.open();
            return { config: { store: 'postgres' as const, pool: database.pool! }, close: database.close };
          },
        },
      ]
    : []),
  ...(redisUrl
    ? [
        {
          name: 'redis',
          async open() {
            const { client, keyPrefix, close } = await openTestRedis();
            return { config: { store: 'redis' as const, client, keyPrefix }, close };
          },
        },
      ]
    : []),
];

describe.each(stores)('requests counted together, in $name', (backend) => {
  const clock: Clock & { at: number } = { at: Date.parse('2026-11-21T12:00:15Z'), now: () => clock.at };
  let quota: ClosableQuota;
  let close: () => Promise<void>;
  let lastId = 1_000;
  const key = (perMinute: number, perDay: number): ApiKeyRecord => ({
    id: ++lastId,
    label: null,
    plan: 'enterprise',
    limits: { perMinute, perDay },
    createdAt: new Date(0),
    lastUsedAt: null,
    revokedAt: null,
  });

  beforeAll(async () => {
    const opened = await backend.open();
    quota = createQuota({ ...opened.config, clock } as QuotaStore, { banThreshold: 3 });
    close = async () => {
      await quota.close();
      await opened.close();
    };
  });
  afterAll(() => close());

  it('counts them in the minute and, those within it, in the day', async () => {
    const subject = key(5, 100);
    const [minute, day] = await quota.consumeKey(subject, 4);
    expect([minute?.remaining, day?.remaining]).toEqual([1, 96]);
    const refused = await refusal(quota.consumeKey(subject, 3));
    expect(refused.code).toBe('rate_limited');
    expect(refused.meta.rateLimit?.map((window) => [window.name, window.remaining])).toEqual([
      ['minute', 0],
      ['day', 95],
    ]);
  });

  it('bans the key when the count passes its limit and the threshold, as one request after another would', async () => {
    const subject = key(2, 100);
    await refusal(quota.consumeKey(subject, 5));
    expect((await refusal(quota.consumeKey(subject, 1))).code).toBe('api_key_banned');
    const other = key(2, 100);
    expect((await refusal(quota.consumeKey(other, 6))).code).toBe('api_key_banned');
  });

  it('counts an address\'s requests together too', async () => {
    const [window] = await quota.consumeAddress('198.51.100.9', 59);
    expect(window?.remaining).toBe(1);
    expect((await refusal(quota.consumeAddress('198.51.100.9', 2))).code).toBe('rate_limited');
  });
});

describe.runIf(databaseUrl)('a ban reached by many requests at once, on PostgreSQL', () => {
  it('is written once by the instance, not once per request', async () => {
    const database = await testDatabases.find((d) => d.name === 'postgres')!.open();
    const statements: string[] = [];
    const pool = { query: (config: { text: string; values?: unknown[] }) => (statements.push(config.text), database.pool!.query(config)) };
    const clock: Clock = { now: () => Date.parse('2026-11-21T12:00:15Z') };
    const quota = createQuota({ store: 'postgres', pool, clock }, { banThreshold: 3 });
    try {
      const subject: ApiKeyRecord = {
        id: 7,
        label: null,
        plan: 'enterprise',
        limits: { perMinute: 2, perDay: 100 },
        createdAt: new Date(0),
        lastUsedAt: null,
        revokedAt: null,
      };
      const outcomes = await Promise.allSettled(Array.from({ length: 100 }, () => quota.consumeKey(subject)));
      const codes = outcomes.map((outcome) => (outcome.status === 'fulfilled' ? 'ok' : (outcome.reason as { code: string }).code));
      expect(codes.filter((code) => code === 'ok')).toHaveLength(2);
      expect(codes.at(-1)).toBe('api_key_banned');
      const writes = statements.filter((text) => /set points = excluded\.points/.test(text));
      expect(writes).toHaveLength(1);
    } finally {
      await quota.close();
      await database.close();
    }
  });
});
