import { testDatabases } from '@petstore/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApiKeyStore, createAuthenticator, type ApiKeyStore, type Clock } from '../index.js';

// The embedded database is enough: the cache is in front of whichever store answers.
const embedded = testDatabases.find((database) => database.name === 'pglite')!;

describe('the key cache', () => {
  let close: () => Promise<void>;
  let keys: ApiKeyStore;
  const clock: Clock = { now: () => Date.parse('2026-11-26T12:00:00Z') };

  beforeAll(async () => {
    const database = await embedded.open();
    close = database.close;
    keys = createApiKeyStore(database.db, { clock });
  });
  afterAll(() => close());

  it('never looks up or keeps a token not shaped like a key', async () => {
    const auth = createAuthenticator({ keys, clock });
    const lookUps = vi.spyOn(keys, 'findByHash');
    lookUps.mockClear();
    for (const token of ['short', 'x'.repeat(15_000), 'has spaces in it, sixteen+']) {
      expect(await auth.explain(token)).toEqual({ status: 'malformed' });
    }
    expect(lookUps).not.toHaveBeenCalled();
    lookUps.mockRestore();
  });

  it('holds at most 10,000 answers: the next distinct token empties it, within the second an answer is kept', { timeout: 60_000 }, async () => {
    const auth = createAuthenticator({ keys, clock });
    const { key } = await keys.create({ plan: 'free', label: 'cached' });
    const lookUps = vi.spyOn(keys, 'findByHash');
    lookUps.mockClear();
    expect(await auth.verify(key)).toBeDefined();
    expect(lookUps).toHaveBeenCalledTimes(1);

    // 9,999 other well-formed tokens: with the key's own answer, the cache is full and still holds it.
    for (let i = 0; i < 9_999; i++) await auth.verify(`unknown-token-${String(i).padStart(6, '0')}`);
    lookUps.mockClear();
    expect(await auth.verify(key)).toBeDefined();
    expect(lookUps).not.toHaveBeenCalled();

    await auth.verify('unknown-token-one-more');
    lookUps.mockClear();
    expect(await auth.verify(key)).toBeDefined();
    expect(lookUps).toHaveBeenCalledTimes(1);
    lookUps.mockRestore();
  });
});

describe('the key a token last named', () => {
  it('is still known when a later look-up fails (the database away), for counting, while verify refuses', async () => {
    const database = await embedded.open();
    let at = Date.parse('2026-11-26T12:00:00Z');
    const clock: Clock = { now: () => at };
    const keys = createApiKeyStore(database.db, { clock });
    const auth = createAuthenticator({ keys, clock });
    const { key, record } = await keys.create({ plan: 'pro', label: 'billed' });
    expect(auth.lastKnown(key)).toBeUndefined();
    expect((await auth.verify(key))?.id).toBe(record.id);
    // The database goes away; the answer kept for a second has run out, so the next request looks up again.
    await database.close();
    at += 1_000;
    await expect(auth.verify(key)).rejects.toThrow();
    expect(auth.lastKnown(key)?.id).toBe(record.id);
    expect(auth.lastKnown('never-looked-up-token-0123456789')).toBeUndefined();
  });

  it('is still known while look-ups that fail overlap, each started after the one before ran out', async () => {
    const database = await embedded.open();
    let at = Date.parse('2026-11-26T12:00:00Z');
    const clock: Clock = { now: () => at };
    const keys = createApiKeyStore(database.db, { clock });
    const auth = createAuthenticator({ keys, clock });
    const { key, record } = await keys.create({ plan: 'pro', label: 'billed' });
    expect((await auth.verify(key))?.id).toBe(record.id);
    await database.close();
    // Each look-up waits on the database that is away; the next request comes once the one before has run out.
    const lookUps: Promise<unknown>[] = [];
    for (let i = 0; i < 3; i++) {
      at += 1_000;
      lookUps.push(auth.verify(key).catch((error: unknown) => error));
      expect(auth.lastKnown(key)?.id).toBe(record.id);
    }
    await Promise.all(lookUps);
    expect(auth.lastKnown(key)?.id).toBe(record.id);
    // And after them, a request that fails again still finds it.
    at += 1_000;
    await expect(auth.verify(key)).rejects.toThrow();
    expect(auth.lastKnown(key)?.id).toBe(record.id);
  });
});
