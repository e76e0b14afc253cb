import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createQuota, createPetStore, type Clock, type PetStore } from '@petstore/core';
import type { TestDatabase } from '@petstore/testing';
import { createTRPCClient, httpBatchLink, httpLink } from '@trpc/client';
import type { AppRouter } from '../app-router.js';
import { createTrpcHandler } from '../http/trpc-handler.js';

/** A settable clock; it starts on 21 November 2026, noon UTC. */
export type TestClock = Clock & { at: number };

/** The production base address the test server links to. */
export const PUBLIC_BASE_URL = 'https://api.petstore.dev/v1';

/** The tRPC API on a real `node:http` server over a fresh database, with the memory quota and one free key. */
export interface TrpcServer {
  /** `http://127.0.0.1:<port>/trpc`. */
  trpcUrl: string;
  store: PetStore;
  apiKey: string;
  clock: TestClock;
  /** A typed client sending `apiKey` (or none with `null`); `batch` uses `httpBatchLink`. */
  client(apiKey?: string | null, options?: { batch?: boolean }): ReturnType<typeof createTRPCClient<AppRouter>>;
  close(): Promise<void>;
}

/**
 * Starts the tRPC handler on port 0 of 127.0.0.1 over a fresh database of the given kind.
 * @example const server = await startTrpcServer(database); await server.client().pets.list.query({})
 */
export async function startTrpcServer(database: TestDatabase): Promise<TrpcServer> {
  const opened = await database.open();
  const clock: TestClock = { at: Date.parse('2026-11-21T12:00:00Z'), now: () => clock.at };
  const quota = createQuota({ store: 'memory', clock });
  const store = createPetStore({ db: opened.db, isUnavailable: opened.isUnavailable, clock, quota });
  const apiKey = (await store.apiKeys.create({ plan: 'free', label: 'trpc-test' })).key;
  const server = createServer(createTrpcHandler({ store, publicUrl: PUBLIC_BASE_URL }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const trpcUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/trpc`;
  return {
    trpcUrl,
    store,
    apiKey,
    clock,
    client(key = apiKey, { batch = false } = {}) {
      const headers = () => (key === null ? {} : { authorization: `Bearer ${key}` });
      return createTRPCClient<AppRouter>({
        links: [batch ? httpBatchLink({ url: trpcUrl, headers }) : httpLink({ url: trpcUrl, headers })],
      });
    },
    async close() {
      await new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
      await quota.close();
      await opened.close();
    },
  };
}
