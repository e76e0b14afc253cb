import { createPetStore, createQuota, type PetStore, type PlanName } from '@petstore/core';
import { createHttpHandler, createOverloadGuard } from '@petstore/embed';
import { listen, type TestDatabase } from '@petstore/testing';

/** A settable clock shared by the service and a client: `sleep` moves it instead of waiting. */
export interface SharedClock {
  at: number;
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** Every wait asked for, in ms. */
  waits: number[];
}

/**
 * A clock starting at noon UTC on 21 November 2026 (so a minute window is whole); `sleep(ms)` moves it to at least
 * `ms` after the call and resolves on the next turn, so calls that wait for the same moment move it once.
 * @example const clock = sharedClock(); createClient({ baseUrl, clock })
 */
export function sharedClock(start = Date.parse('2026-11-21T12:00:00Z')): SharedClock {
  const clock: SharedClock = {
    at: start,
    now: () => clock.at,
    waits: [],
    async sleep(ms, signal) {
      clock.waits.push(ms);
      const until = clock.at + ms;
      await new Promise((resolve) => setImmediate(resolve));
      if (signal?.aborted) throw signal.reason;
      clock.at = Math.max(clock.at, until);
    },
  };
  return clock;
}

/** The whole HTTP surface (REST and tRPC) of a store on a fresh database, on a real server on port 0. */
export interface TestService {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  /** `http://127.0.0.1:<port>/v1`. */
  base: string;
  store: PetStore;
  apiKey: string;
  close(): Promise<void>;
}

/** How the test service is set up. */
export interface TestServiceOptions {
  /** The key's plan; `pro` by default. */
  plan?: PlanName;
  /** The store's clock (the system's by default). */
  clock?: { now(): number };
  /** Requests served at once before a 503 `unavailable` with `Retry-After: 1`; no limit by default. */
  maxConcurrent?: number;
}

/**
 * Opens a database, builds the store with the memory quota and serves `createHttpHandler` on 127.0.0.1.
 * @example const service = await startService(database, { plan: 'free' })
 */
export async function startService(database: TestDatabase, options: TestServiceOptions = {}): Promise<TestService> {
  const opened = await database.open();
  const clock = options.clock ?? { now: () => Date.now() };
  const quota = createQuota({ store: 'memory', clock });
  const store = createPetStore({ db: opened.db, isUnavailable: opened.isUnavailable, clock, quota });
  const { key: apiKey } = await store.apiKeys.create({ plan: options.plan ?? 'pro' });
  const overload = options.maxConcurrent ? createOverloadGuard({ maxConcurrent: options.maxConcurrent, shedLagMs: 0 }) : undefined;
  const server = await listen(createHttpHandler(store, { overload }));
  return {
    url: server.url,
    base: `${server.url}/v1`,
    store,
    apiKey,
    async close() {
      await server.close();
      overload?.close();
      await quota.close();
      await opened.close();
    },
  };
}
