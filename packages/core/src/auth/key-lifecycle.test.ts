import { refusal, testDatabases } from '@petstore/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  createApiKeyStore,
  createAuthenticator,
  createPetStore,
  invalidApiKey,
  type ApiKeyStore,
  type Authenticator,
  type Clock,
  type Database,
} from '../index.js';
import type { Kysely } from 'kysely';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe.each(testDatabases)('the lifecycle of API keys on $name', (database) => {
  let db: Kysely<Database>;
  let close: () => Promise<void>;
  const clock: Clock & { at: number } = { at: Date.parse('2026-11-23T12:00:00Z'), now: () => clock.at };
  let keys: ApiKeyStore;
  let auth: Authenticator;

  beforeAll(async () => {
    ({ db, close } = await database.open());
    keys = createApiKeyStore(db, { clock });
    auth = createAuthenticator({ keys, clock });
  });
  afterAll(() => close());

  it('keeps a key working until its expiry and then refuses it, saying it expired', async () => {
    const expiresAt = new Date(clock.at + 30 * DAY);
    const { key, record } = await keys.create({ plan: 'pro', label: 'expiring', expiresAt });
    expect(record.expiresAt).toEqual(expiresAt);
    expect(await auth.verify(key)).toMatchObject({ id: record.id, plan: 'pro' });

    clock.at = expiresAt.getTime() - 1;
    expect(await auth.verify(key)).toBeDefined();
    clock.at = expiresAt.getTime();
    expect(await auth.verify(key)).toBeUndefined();
    const verdict = await auth.explain(key);
    expect(verdict).toEqual({ status: 'expired', at: expiresAt, replaced: false });
    const error = invalidApiKey(verdict);
    expect(error.toBody()).toEqual({
      code: 'invalid_api_key',
      message: `The API key expired at ${expiresAt.toISOString().replace('.000Z', 'Z')}.`,
      status: 401,
    });
    expect((await keys.list()).find((k) => k.id === record.id)?.expiresAt).toEqual(expiresAt);
  });

  it('refuses an expired key even while an earlier answer for it is still cached', async () => {
    const { key } = await keys.create({ plan: 'free', expiresAt: new Date(clock.at + 500) });
    expect(await auth.verify(key)).toBeDefined();
    clock.at += 500;
    expect(await auth.verify(key)).toBeUndefined();
    expect((await auth.explain(key)).status).toBe('expired');
  });

  it('explains unknown, malformed and revoked keys with the usual message', async () => {
    const { key, record } = await keys.create({ plan: 'free' });
    await keys.revoke(record.id);
    clock.at += 2_000;
    expect(await auth.explain(key)).toEqual({ status: 'revoked' });
    expect(await auth.explain('psk_' + 'x'.repeat(38))).toEqual({ status: 'malformed' });
    expect(await auth.explain('a-configured-key-that-was-never-made')).toEqual({ status: 'unknown' });
    for (const status of ['revoked', 'malformed', 'unknown'] as const) {
      expect(invalidApiKey({ status }).message).toBe('The API key is unknown, revoked or malformed.');
    }
  });

  it('refuses an expiry that is not ahead', async () => {
    await expect(keys.create({ plan: 'free', expiresAt: new Date(clock.at) })).rejects.toThrow(RangeError);
    await expect(keys.create({ plan: 'free', expiresAt: new Date(NaN) })).rejects.toThrow(RangeError);
  });

  it('rolls a key: the new one has its label, plan and limits and works at once, the old one until the grace ends', async () => {
    const { key: oldKey, record: old } = await keys.create({
      plan: 'enterprise',
      label: 'big customer',
      limits: { perMinute: 5000, perDay: 2_000_000 },
    });
    const rolled = await keys.roll(old.id, { graceMs: 24 * HOUR });
    if (typeof rolled === 'string') return expect.unreachable(rolled);
    expect(rolled.key).not.toBe(oldKey);
    expect(rolled.record).toMatchObject({
      label: 'big customer',
      plan: 'enterprise',
      limits: { perMinute: 5000, perDay: 2_000_000 },
      expiresAt: null,
      replacedBy: null,
    });
    const graceEnd = new Date(clock.at + 24 * HOUR);
    expect(rolled.previous).toMatchObject({ id: old.id, expiresAt: graceEnd, replacedBy: rolled.record.id });
    expect(await auth.verify(rolled.key)).toMatchObject({ id: rolled.record.id });
    expect(await auth.verify(oldKey)).toMatchObject({ id: old.id });

    clock.at = graceEnd.getTime() - 1;
    expect(await auth.verify(oldKey)).toBeDefined();
    clock.at = graceEnd.getTime();
    expect(await auth.verify(oldKey)).toBeUndefined();
    const verdict = await auth.explain(oldKey);
    expect(verdict).toEqual({ status: 'expired', at: graceEnd, replaced: true });
    expect(invalidApiKey(verdict).message).toMatch(/expired at .*grace period of its rotation ended; use the key that replaced it/);
    expect(await auth.verify(rolled.key)).toBeDefined();
  });

  it('gives the new key the old expiry, or the one asked for, and never extends the old key past its own', async () => {
    const expiresAt = new Date(clock.at + 2 * HOUR);
    const { record: old } = await keys.create({ plan: 'free', expiresAt });
    const kept = await keys.roll(old.id, { graceMs: 24 * HOUR });
    if (typeof kept === 'string') return expect.unreachable(kept);
    expect(kept.record.expiresAt).toEqual(expiresAt);
    expect(kept.previous.expiresAt).toEqual(expiresAt);

    const { record: other } = await keys.create({ plan: 'free' });
    const later = new Date(clock.at + 90 * DAY);
    const renewed = await keys.roll(other.id, { graceMs: 0, expiresAt: later });
    if (typeof renewed === 'string') return expect.unreachable(renewed);
    expect(renewed.record.expiresAt).toEqual(later);
    expect(renewed.previous.expiresAt).toEqual(new Date(clock.at));
  });

  it('refuses to roll an unknown, revoked, expired or already rolled key', async () => {
    expect(await keys.roll(999_999, { graceMs: HOUR })).toBe('not_found');
    const { record: revoked } = await keys.create({ plan: 'free' });
    await keys.revoke(revoked.id);
    expect(await keys.roll(revoked.id, { graceMs: HOUR })).toBe('revoked');
    const { record: expiring } = await keys.create({ plan: 'free', expiresAt: new Date(clock.at + 1000) });
    clock.at += 1000;
    expect(await keys.roll(expiring.id, { graceMs: HOUR })).toBe('expired');
    const { record: once } = await keys.create({ plan: 'free' });
    expect(typeof (await keys.roll(once.id, { graceMs: HOUR }))).toBe('object');
    expect(await keys.roll(once.id, { graceMs: HOUR })).toBe('already_rolled');
    await expect(keys.roll(once.id, { graceMs: -1 })).rejects.toThrow(RangeError);
    await expect(keys.roll(once.id, { graceMs: 366 * DAY })).rejects.toThrow(RangeError);
  });

  it('records when a key was last used, by the clock, at most once a minute', async () => {
    const { key, record } = await keys.create({ plan: 'free' });
    const lastUsed = async () => (await keys.list()).find((k) => k.id === record.id)?.lastUsedAt;
    expect(await lastUsed()).toBeNull();
    const first = clock.at;
    await auth.verify(key);
    await vi.waitFor(async () => expect(await lastUsed()).toEqual(new Date(first)));
    clock.at += 30_000;
    await auth.verify(key);
    clock.at += 31_000;
    await auth.verify(key);
    await vi.waitFor(async () => expect(await lastUsed()).toEqual(new Date(first + 61_000)));
  });

  it('does not count expired keys as active', async () => {
    const fresh = await database.open();
    try {
      const store = createApiKeyStore(fresh.db, { clock });
      await store.create({ plan: 'free', expiresAt: new Date(clock.at + HOUR) });
      expect(await store.countActive()).toBe(1);
      clock.at += HOUR;
      expect(await store.countActive()).toBe(0);
    } finally {
      await fresh.close();
    }
  });

  it('answers an expired key 401 invalid_api_key in the pet store, like a revoked one', async () => {
    const store = createPetStore({ db, clock });
    const { key } = await keys.create({ plan: 'free', expiresAt: new Date(clock.at + HOUR) });
    await expect(store.listPets({ limit: 1 }, { apiKey: key })).resolves.toMatchObject({ data: expect.any(Array) });
    clock.at += HOUR + 1_000;
    const error = await refusal(store.listPets({ limit: 1 }, { apiKey: key }));
    expect(error.code).toBe('invalid_api_key');
    expect(error.status).toBe(401);
    expect(error.message).toMatch(/^The API key expired at \d{4}-\d{2}-\d{2}T/);
    const unknown = await refusal(store.listPets({ limit: 1 }, { apiKey: 'never-issued-key-0123456789' }));
    expect(unknown.message).toBe('The API key is unknown, revoked or malformed.');
  });

  it('refuses to keep a configured key that no token could match, saying what a key must be', async () => {
    for (const key of ['short-key', 'psk_not-one-the-key-tool-made-0123456789']) {
      await expect(keys.ensure(key, { plan: 'free' })).rejects.toThrow(
        'A configured API key must be 16 to 255 visible ASCII characters other than ":" and ","; one starting with "psk_" must be a key made by the key tool.',
      );
    }
  });
});
