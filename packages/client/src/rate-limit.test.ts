import { testDatabases } from '@petstore/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from './index.js';
import { droppingProxy } from './testing/dropping-proxy.js';
import { sharedClock, startService, type SharedClock, type TestService } from './testing/service.js';

const MINUTE = 60_000;

describe.each(testDatabases)('a free key over its minute under the client, on $name', (database) => {
  let clock: SharedClock;
  let service: TestService;
  let proxy: Awaited<ReturnType<typeof droppingProxy>>;
  beforeAll(async () => {
    clock = sharedClock();
    service = await startService(database, { plan: 'free', clock });
    proxy = await droppingProxy(service.url, /^POST \/v1\/pets /);
  });
  afterAll(async () => {
    await proxy.close();
    await service.close();
  });

  it('is never banned and never creates a pet twice, also when answers to creates are lost', { timeout: 120_000 }, async () => {
    const answers: { status: number; code?: string; window: number }[] = [];
    const fetch = async (url: string, init: RequestInit) => {
      const window = Math.floor(clock.now() / MINUTE);
      const response = await globalThis.fetch(url, init);
      const code = response.status >= 400 ? ((await response.clone().json()) as { code: string }).code : undefined;
      answers.push({ status: response.status, code, window });
      return response;
    };
    // 150 creates on 60 a minute take three windows or more (an answer read after the shared clock moved on closes a
    // window late): the calls may take as long as that, past the default timeout of 2 minutes.
    const petstore = createClient({ baseUrl: proxy.base, apiKey: service.apiKey, clock, fetch, maxRetries: 10, maxRetryWait: 2 * MINUTE, timeout: Infinity });
    proxy.state.drops = 3;

    const names = Array.from({ length: 150 }, (_, i) => `Burst ${i}`);
    const created = await Promise.all(names.map((name) => petstore.createPet({ name, categoryId: 1 })));

    expect(proxy.state.dropped).toBe(3);
    expect(created.map((pet) => pet.name)).toEqual(names);
    expect(new Set(created.map((pet) => pet.id)).size).toBe(150);
    expect(answers.filter((answer) => answer.code === 'api_key_banned')).toEqual([]);
    const refusedPerWindow = new Map<number, number>();
    for (const { window, status } of answers) if (status === 429) refusedPerWindow.set(window, (refusedPerWindow.get(window) ?? 0) + 1);
    for (const refusals of refusedPerWindow.values()) expect(refusals).toBeLessThan(10);
    expect(clock.now() - Date.parse('2026-11-21T12:00:00Z')).toBeGreaterThanOrEqual(2 * MINUTE); // 150 creates took 3 windows

    const stored = [];
    for await (const pet of petstore.paginate('listPets', { limit: 100 })) stored.push(pet);
    expect(stored).toEqual([...created].sort((a, b) => a.id - b.id));
  });

  it('while the same burst sent without the client gets the key banned', async () => {
    const { key } = await service.store.apiKeys.create({ plan: 'free' });
    const answers = await Promise.all(
      Array.from({ length: 75 }, async (_, i) => {
        const response = await fetch(`${service.base}/pets`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': `naive-${i}` },
          body: JSON.stringify({ name: `Naive ${i}`, categoryId: 1 }),
        });
        return response.status === 429 ? ((await response.json()) as { code: string }).code : response.status;
      }),
    );
    expect(answers.filter((answer) => answer === 201)).toHaveLength(60);
    expect(answers).toContain('api_key_banned');
  });
});
