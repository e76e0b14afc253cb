import { testDatabases } from '@petstore/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, PetStoreApiError } from './index.js';
import { startService, type TestService } from './testing/service.js';

/** The service's time stands 30 s into a minute, so no window resets under the test. */
const serviceClock = { now: () => Date.parse('2026-11-21T12:00:30Z') };

/** A fetch that notes the path of each request sent. */
function noting() {
  const sent: string[] = [];
  const fetch = (url: string, init: RequestInit) => {
    sent.push(new URL(url).pathname);
    return globalThis.fetch(url, init);
  };
  return { sent, fetch };
}

describe.each(testDatabases)("getUsage and the client's rate gate, on $name", (database) => {
  let service: TestService;
  beforeAll(async () => {
    service = await startService(database, { plan: 'free', clock: serviceClock });
  });
  afterAll(() => service.close());

  it('sends getUsage while the gate holds every other call back, since the service counts it against no window', async () => {
    const { sent, fetch } = noting();
    const petstore = createClient({ baseUrl: service.base, apiKey: service.apiKey, maxRetryWait: 1_000, fetch });
    for (let i = 0; i < 60; i++) await petstore.listPets({ limit: 1 });
    // The minute is spent (remaining 0): the gate is closed for 30 s, longer than these calls may wait.
    const refused = await petstore.listPets({ limit: 1 }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(PetStoreApiError);
    expect(refused).toMatchObject({ code: 'rate_limited', status: 429, requestId: undefined });
    expect(sent).toHaveLength(60);
    const usage = await petstore.getUsage();
    expect(usage.windows[0]).toMatchObject({ name: 'minute', limit: 60, remaining: 0 });
    expect(usage.today.served).toBe(60);
    expect(sent.at(-1)).toBe('/v1/usage');
    expect(sent).toHaveLength(61);
  });

  it("keeps sending the plan's calls after getUsage's own limit refuses it", async () => {
    const { key } = await service.store.apiKeys.create({ plan: 'pro' });
    const { sent, fetch } = noting();
    const petstore = createClient({ baseUrl: service.base, apiKey: key, maxRetryWait: 1_000, fetch });
    for (let i = 0; i < 120; i++) await petstore.getUsage();
    // The 121st is over getUsage's own limit (120 a minute): a 429 asking for 30 s, longer than the call may wait.
    const own = await petstore.getUsage().catch((error: unknown) => error);
    expect(own).toMatchObject({ code: 'rate_limited', status: 429, retryAfter: 30 });
    expect((own as PetStoreApiError).requestId).toBeDefined();
    // That limit is getUsage's alone: the plan's calls go on, sent and answered.
    expect(await petstore.listPets({ limit: 1 })).toEqual([]);
    expect(sent.at(-1)).toBe('/v1/pets');
    expect(sent).toHaveLength(122);
  });
});
