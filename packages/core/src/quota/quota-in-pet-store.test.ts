import { refusal } from '@petstore/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock, PetStore } from '../index.js';
import { openQuotaSetup, quotaSetups } from '../testing/quota-setups.js';

// Each database with its default store (memory on PGlite, the table on PostgreSQL), and the last one with Redis.
describe.each(quotaSetups)('quotas in the pet store on $name', (setup) => {
  let close: () => Promise<void>;
  let store: PetStore;
  const clock: Clock & { at: number } = { at: Date.parse('2026-11-21T12:00:15.200Z'), now: () => clock.at };
  const nextMinute = () => (clock.at = (Math.floor(clock.at / 60_000) + 1) * 60_000 + 15_200);

  beforeAll(async () => {
    ({ store, close } = await openQuotaSetup(setup, clock));
  });
  afterAll(() => close());

  it('attaches the minute and day windows of the key to an outcome, also when the input is refused', async () => {
    nextMinute();
    const { key } = await store.apiKeys.create({ plan: 'free' });
    const outcome = await store.listPets({}, { apiKey: key });
    expect(outcome.meta.rateLimit).toMatchObject([
      { name: 'minute', limit: 60, remaining: 59, resetIn: 45 },
      { name: 'day', limit: 1000, remaining: 999 },
    ]);
    const invalid = await refusal(store.listPets({ limit: 0 }, { apiKey: key }));
    expect(invalid.meta.rateLimit?.[0]).toMatchObject({ name: 'minute', remaining: 58 });
  });

  it('reads the input only once the request is admitted', async () => {
    nextMinute();
    let read = 0;
    const input = () => (read++, {});
    expect((await refusal(store.call('listPets', input, {}))).code).toBe('missing_api_key');
    expect((await refusal(store.call('listPets', input, { apiKey: 'x'.repeat(20) }))).code).toBe('invalid_api_key');
    expect(read).toBe(0);
    const { key } = await store.apiKeys.create({ plan: 'free' });
    await store.call('listPets', input, { apiKey: key });
    expect(read).toBe(1);
  });

  it('answers the 61st request of a minute with 429, its windows and Retry-After, as headers', async () => {
    nextMinute();
    const { key } = await store.apiKeys.create({ plan: 'free' });
    for (let i = 0; i < 60; i++) await store.listPets({ limit: 1 }, { apiKey: key });
    const error = await refusal(store.listPets({ limit: 1 }, { apiKey: key }));
    expect(error.toBody()).toMatchObject({ code: 'rate_limited', status: 429 });
    expect(error.meta.retryAfter).toBe(45);
    const resetAt = Math.floor(clock.at / 60_000 + 1) * 60;
    expect(error.meta.rateLimit).toEqual([
      { name: 'minute', limit: 60, remaining: 0, resetAt, resetIn: 45, seconds: 60 },
      { name: 'day', limit: 1000, remaining: 940, resetAt: Math.floor(clock.at / 86_400_000 + 1) * 86_400, resetIn: expect.any(Number), seconds: 86_400 },
    ]);
  });

  it('counts every request with a valid key, whatever its outcome', async () => {
    nextMinute();
    const { key } = await store.apiKeys.create({ plan: 'free' });
    expect((await refusal(store.getPet({ petId: 999_999 }, { apiKey: key }))).meta.rateLimit?.[0]?.remaining).toBe(59);
    expect(
      (await refusal(store.createPet({ name: '' } as never, { apiKey: key }))).meta.rateLimit?.[0]?.remaining,
    ).toBe(58);
    expect((await store.meter({ apiKey: key })).rateLimit?.[0]?.remaining).toBe(57);
  });

  it('answers api_key_banned with Retry-After after 10 more requests past a refusal', async () => {
    nextMinute();
    const { key } = await store.apiKeys.create({ plan: 'free' });
    for (let i = 0; i < 70; i++) await store.listPets({}, { apiKey: key }).catch(() => {});
    const error = await refusal(store.listPets({}, { apiKey: key }));
    expect(error.toBody()).toMatchObject({ code: 'api_key_banned', status: 429 });
    expect(error.meta).toMatchObject({ retryAfter: 900, rateLimit: [{ remaining: 0 }, {}] });
  });

  it('limits requests without a valid key per client address, carrying the address window', async () => {
    nextMinute();
    const missing = await refusal(store.listPets({}, { clientAddress: '198.51.100.7' }));
    expect(missing.code).toBe('missing_api_key');
    expect(missing.meta.rateLimit).toMatchObject([{ name: 'address', limit: 60, remaining: 59, seconds: 60 }]);
    for (let i = 0; i < 59; i++)
      await store.listPets({}, { apiKey: 'x'.repeat(20), clientAddress: '198.51.100.7' }).catch(() => {});
    const limited = await refusal(store.listPets({}, { clientAddress: '198.51.100.7' }));
    expect(limited.code).toBe('rate_limited');
    expect(limited.meta).toMatchObject({ retryAfter: 45, rateLimit: [{ name: 'address', remaining: 0 }] });
    expect((await refusal(store.listPets({}, { clientAddress: '198.51.100.8' }))).code).toBe('missing_api_key');
  });

  it('refuses a valid key exactly like a wrong one while its address is over the limit', async () => {
    nextMinute();
    const address = '198.51.100.9';
    const { key } = await store.apiKeys.create({ plan: 'free' });
    for (let i = 0; i < 60; i++) {
      const wrong = await refusal(store.listPets({}, { apiKey: `made-up-key-${i}-0000000000`, clientAddress: address }));
      expect(wrong.code).toBe('invalid_api_key');
    }
    const guess = await refusal(store.listPets({}, { apiKey: 'made-up-key-x-0000000000', clientAddress: address }));
    const right = await refusal(store.listPets({}, { apiKey: key, clientAddress: address }));
    expect(right.toBody()).toEqual(guess.toBody());
    expect(right.meta.rateLimit).toEqual(guess.meta.rateLimit);
    expect(right.meta.retryAfter).toEqual(guess.meta.retryAfter);
    expect(right.code).toBe('rate_limited');
    // The same key from another address, and from this one in the next window, is served.
    expect((await store.listPets({}, { apiKey: key, clientAddress: '198.51.100.10' })).data).toBeDefined();
    nextMinute();
    expect((await store.listPets({}, { apiKey: key, clientAddress: address })).data).toBeDefined();
  });
});
