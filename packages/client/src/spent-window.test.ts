import type { AppRouter } from '@petstore/trpc';
import { testDatabases } from '@petstore/testing';
import { createTRPCClient, TRPCClientError } from '@trpc/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, PetStoreApiError, type RateLimitFields } from './index.js';
import { startService, type TestService } from './testing/service.js';
import { petStoreLinks } from './trpc.js';

/** The service's time stands 30 s into a minute, so the window the test spends never resets under it. */
const serviceClock = { now: () => Date.parse('2026-11-21T12:00:30Z') };

/** A fetch that notes each answer's status and code. */
function noting() {
  const answers: (number | string)[] = [];
  const fetch = async (url: string, init: RequestInit) => {
    const response = await globalThis.fetch(url, init);
    answers.push(response.status === 429 ? JSON.stringify(await response.clone().json()) : response.status);
    return response;
  };
  return { answers, fetch };
}

/** Every call's outcome, or 'pending' when one has not settled within `ms` of real time. */
async function settledWithin<T>(ms: number, calls: Promise<T>[]) {
  let timer: NodeJS.Timeout | undefined;
  const pending = new Promise<'pending'>((resolve) => (timer = setTimeout(() => resolve('pending'), ms)));
  const outcome = await Promise.race([Promise.allSettled(calls), pending]);
  clearTimeout(timer);
  return outcome;
}

describe.each(testDatabases)('58 calls, then 40 at once, on a free key with maxRetryWait 1000, on $name', (database) => {
  let service: TestService;
  beforeAll(async () => {
    service = await startService(database, { plan: 'free', clock: serviceClock });
  });
  afterAll(() => service.close());

  it('settle every call of the REST client: two answered, the rest refused, and no ban', { timeout: 60_000 }, async () => {
    const { answers, fetch } = noting();
    const fields: RateLimitFields[] = [];
    const petstore = createClient({ baseUrl: service.base, apiKey: service.apiKey, maxRetryWait: 1_000, fetch });
    for (let i = 0; i < 58; i++) await petstore.listPets({ limit: 1 }, { onRateLimit: (each) => fields.push(each) });
    expect(fields.at(-1)).toMatchObject({ status: 200, limit: 60, remaining: 2, windows: [{ name: 'minute', remaining: 2, limit: 60 }, { name: 'day' }] });

    const outcome = await settledWithin(10_000, Array.from({ length: 40 }, () => petstore.listPets({ limit: 1 })));
    expect(outcome).not.toBe('pending');
    const settled = outcome as PromiseSettledResult<unknown>[];
    expect(settled.filter((each) => each.status === 'fulfilled')).toHaveLength(2);
    for (const each of settled.filter((each) => each.status === 'rejected')) {
      expect(each.reason).toBeInstanceOf(PetStoreApiError);
      expect(each.reason).toMatchObject({ code: 'rate_limited', status: 429 });
    }
    const refusals = answers.filter((answer) => typeof answer === 'string');
    expect(refusals.length).toBeLessThan(10);
    expect(refusals.join()).not.toContain('api_key_banned');
  });

  it('settle every call of petStoreLinks on a real @trpc/client, and tell each call its rate-limit fields', { timeout: 60_000 }, async () => {
    const { key } = await service.store.apiKeys.create({ plan: 'free' });
    const { answers, fetch } = noting();
    const every: RateLimitFields[] = [];
    const onRateLimit = (each: RateLimitFields) => every.push(each);
    const petstore = createTRPCClient<AppRouter>({ links: petStoreLinks({ url: `${service.url}/trpc`, apiKey: key, maxRetryWait: 1_000, fetch, onRateLimit }) });
    const fields: RateLimitFields[] = [];
    for (let i = 0; i < 58; i++) await petstore.pets.list.query({ limit: 1 }, { context: { onRateLimit: (each: RateLimitFields) => fields.push(each) } });
    expect(fields).toHaveLength(58);
    expect(fields.at(-1)).toMatchObject({ status: 200, limit: 60, remaining: 2 });
    expect(every).toEqual(fields);

    const outcome = await settledWithin(10_000, Array.from({ length: 40 }, () => petstore.pets.list.query({ limit: 1 })));
    expect(outcome).not.toBe('pending');
    const settled = outcome as PromiseSettledResult<unknown>[];
    expect(settled.filter((each) => each.status === 'fulfilled')).toHaveLength(2);
    for (const each of settled.filter((each) => each.status === 'rejected')) {
      const error = each.reason as TRPCClientError<AppRouter>;
      expect(error).toBeInstanceOf(TRPCClientError);
      // Refused by the service (the Error body in data), or by the link without a request (a PetStoreApiError cause).
      expect(error.data?.error?.code ?? (error.cause as PetStoreApiError | undefined)?.code).toBe('rate_limited');
    }
    const refusals = answers.filter((answer) => typeof answer === 'string');
    expect(refusals.length).toBeLessThan(10);
    expect(refusals.join()).not.toContain('api_key_banned');
  });
});
