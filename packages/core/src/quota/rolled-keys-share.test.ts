import { refusal } from '@petstore/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock, PetStore } from '../index.js';
import { openQuotaSetup, quotaSetups } from '../testing/quota-setups.js';

// DECISIONS "Hostile clients and overload": a rolled key and its successor share one quota and one ban during the
// grace period. On each quota store: memory (on PGlite), the table (on PostgreSQL), Redis.
const DAY_MS = 86_400_000;

describe.each(quotaSetups)('a rolled key and its successor on $name', (setup) => {
  let close: () => Promise<void>;
  let store: PetStore;
  const clock: Clock & { at: number } = { at: Date.parse('2026-11-21T12:00:15.200Z'), now: () => clock.at };
  const nextMinute = () => (clock.at = (Math.floor(clock.at / 60_000) + 1) * 60_000 + 15_200);

  beforeAll(async () => {
    ({ store, close } = await openQuotaSetup(setup, clock));
  });
  afterAll(() => close());

  /** A free key rolled with a day's grace: the old key and its successor. */
  async function rolled() {
    const old = await store.apiKeys.create({ plan: 'free' });
    const roll = await store.apiKeys.roll(old.record.id, { graceMs: DAY_MS });
    if (typeof roll === 'string') throw new Error(roll);
    return { old: old.key, successor: roll.key, successorId: roll.record.id };
  }

  it('count both keys in one minute window: 60 between them, not 60 each', async () => {
    nextMinute();
    const { old, successor } = await rolled();
    for (let i = 0; i < 30; i++) await store.listPets({ limit: 1 }, { apiKey: old });
    const last = await store.listPets({ limit: 1 }, { apiKey: successor });
    expect(last.meta.rateLimit?.[0]).toMatchObject({ name: 'minute', remaining: 29 });
    for (let i = 0; i < 29; i++) await store.listPets({ limit: 1 }, { apiKey: i % 2 ? old : successor });
    expect((await refusal(store.listPets({ limit: 1 }, { apiKey: successor }))).code).toBe('rate_limited');
    expect((await refusal(store.listPets({ limit: 1 }, { apiKey: old }))).code).toBe('rate_limited');
  });

  it('ban both keys when one is banned, and a successor of the successor too', async () => {
    nextMinute();
    const { old, successor, successorId } = await rolled();
    for (let i = 0; i < 71; i++) await store.listPets({}, { apiKey: old }).catch(() => {});
    expect((await refusal(store.listPets({}, { apiKey: old }))).code).toBe('api_key_banned');
    const banned = await refusal(store.listPets({}, { apiKey: successor }));
    expect(banned.code).toBe('api_key_banned');
    expect(banned.meta.retryAfter).toBeGreaterThan(800);
    const again = await store.apiKeys.roll(successorId, { graceMs: DAY_MS });
    if (typeof again === 'string') throw new Error(again);
    expect((await refusal(store.listPets({}, { apiKey: again.key }))).code).toBe('api_key_banned');
    // A key of its own is not touched by the rotation's ban.
    const { key: other } = await store.apiKeys.create({ plan: 'free' });
    expect((await store.listPets({}, { apiKey: other })).data).toBeDefined();
  });
});
