import { connect } from 'node:net';
import type { AppRouter } from '@petstore/trpc';
import { testDatabases } from '@petstore/testing';
import { createTRPCClient, httpLink, TRPCClientError } from '@trpc/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from './index.js';
import { droppingProxy } from './testing/dropping-proxy.js';
import { sharedClock, startService, type SharedClock, type TestService } from './testing/service.js';
import { petStoreLinks, petStoreRetryLink } from './trpc.js';

const MINUTE = 60_000;

describe.each(testDatabases)('the tRPC links against the service on $name', (database) => {
  let clock: SharedClock;
  let service: TestService;
  let proxy: Awaited<ReturnType<typeof droppingProxy>>;
  beforeAll(async () => {
    clock = sharedClock();
    service = await startService(database, { plan: 'free', clock });
    proxy = await droppingProxy(service.url, /^POST \/trpc\/pets\.create/);
  });
  afterAll(async () => {
    await proxy.close();
    await service.close();
  });

  it('keep a free key over its minute from a ban, and create each pet once, also when answers are lost', { timeout: 120_000 }, async () => {
    const codes: string[] = [];
    const fetch = async (url: string, init: RequestInit) => {
      const response = await globalThis.fetch(url, init);
      if (response.status === 429) codes.push(JSON.stringify(await response.clone().json()));
      return response;
    };
    const petstore = createTRPCClient<AppRouter>({
      links: petStoreLinks({ url: `${proxy.url}/trpc`, apiKey: service.apiKey, clock, fetch, maxRetries: 10, maxRetryWait: 2 * MINUTE, timeout: Infinity }),
    });
    proxy.state.drops = 2;
    const names = Array.from({ length: 100 }, (_, i) => `Trpc ${i}`);
    const created = await Promise.all(names.map((name) => petstore.pets.create.mutate({ name, categoryId: 1 })));
    expect(proxy.state.dropped).toBe(2);
    expect(created.map((pet) => pet.name)).toEqual(names);
    expect(new Set(created.map((pet) => pet.id)).size).toBe(100);
    expect(codes.length).toBeGreaterThan(0);
    expect(codes.filter((code) => code.includes('api_key_banned'))).toEqual([]);
    const listed = await petstore.pets.list.query({ limit: 100 });
    expect(listed.filter((pet) => pet.name.startsWith('Trpc ')).map((pet) => pet.id).sort()).toEqual(created.map((pet) => pet.id).sort());
  });

  it('never retry a bad input', async () => {
    let requests = 0;
    const fetch = (url: string, init: RequestInit) => (requests++, globalThis.fetch(url, init));
    const petstore = createTRPCClient<AppRouter>({ links: petStoreLinks({ url: `${service.url}/trpc`, apiKey: service.apiKey, clock, fetch }) });
    const invalid = await petstore.pets.create.mutate({ name: '', categoryId: 1 }).catch((error: unknown) => error);
    expect(invalid).toBeInstanceOf(TRPCClientError);
    expect((invalid as TRPCClientError<AppRouter>).data?.error).toMatchObject({ code: 'invalid_request', status: 400 });
    expect(requests).toBe(1);
  });
});

/** Holds one request slot of the service: a create whose body never comes. */
function holdSlot(url: string, apiKey: string) {
  const { port } = new URL(url);
  const socket = connect(Number(port), '127.0.0.1');
  const head = `POST /v1/pets HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${apiKey}\r\nContent-Type: application/json`;
  socket.write(`${head}\r\nContent-Length: 100\r\n\r\n{`);
  return socket;
}

describe.each(testDatabases)('a real 503 from an overloaded service on $name', (database) => {
  let service: TestService;
  beforeAll(async () => {
    service = await startService(database, { maxConcurrent: 1 });
  });
  afterAll(() => service.close());

  it('is retried after its Retry-After by the REST client and the tRPC link', { timeout: 30_000 }, async () => {
    const rest = createClient({ baseUrl: service.base, apiKey: service.apiKey });
    const trpc = createTRPCClient<AppRouter>({
      links: [petStoreRetryLink(), httpLink({ url: `${service.url}/trpc`, headers: { authorization: `Bearer ${service.apiKey}` } })],
    });
    for (const call of [() => rest.listPets({ limit: 1 }), () => trpc.pets.list.query({ limit: 1 })]) {
      const slot = holdSlot(service.url, service.apiKey);
      await new Promise((resolve) => setTimeout(resolve, 100));
      const refused = await fetch(`${service.base}/pets`, { headers: { authorization: `Bearer ${service.apiKey}` } });
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('1');
      const started = performance.now();
      setTimeout(() => slot.destroy(), 300);
      expect(Array.isArray(await call())).toBe(true);
      expect(performance.now() - started).toBeGreaterThanOrEqual(990);
    }
  });
});
