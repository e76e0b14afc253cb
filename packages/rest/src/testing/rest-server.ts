import { createPetStore, createQuota, type Clock, type Limits, type PetStore, type PlanName, type QuotaOptions } from '@petstore/core';
import { listen, type TestDatabase } from '@petstore/testing';
import { expect } from 'vitest';
import { createRestHandler, type RestHandlerOptions } from '../rest-handler.js';

/** A settable clock; it starts on 21 November 2026, noon UTC. */
export type TestClock = Clock & { at: number };

/** The REST API on a real server over a fresh database, with the real memory quota and one key. */
export interface RestServer {
  /** `http://127.0.0.1:<port>/v1`. */
  base: string;
  store: PetStore;
  apiKey: string;
  /** `{ authorization: 'Bearer <apiKey>' }`. */
  auth: Record<string, string>;
  clock: TestClock;
  /** Drops the database and stops the server. */
  close(): Promise<void>;
  /** The underlying database handle, for tests that break it on purpose. */
  database: Awaited<ReturnType<TestDatabase['open']>>;
}

/** How the test server is set up: the key's plan (business by default) and limits, quota options, handler options. */
export interface RestServerOptions {
  plan?: PlanName;
  limits?: Limits;
  quota?: QuotaOptions;
  handler?: Omit<RestHandlerOptions, 'store'>;
}

/**
 * Opens a database, builds the store with an injected clock and the memory quota, and serves the REST handler on
 * port 0 of 127.0.0.1.
 * @example const api = await startRestServer(database); await fetch(`${api.base}/pets`, { headers: api.auth })
 */
export async function startRestServer(database: TestDatabase, options: RestServerOptions = {}): Promise<RestServer> {
  const opened = await database.open();
  const clock: TestClock = { at: Date.parse('2026-11-21T12:00:00Z'), now: () => clock.at };
  const quota = createQuota({ store: 'memory', clock }, options.quota);
  const store = createPetStore({ db: opened.db, isUnavailable: opened.isUnavailable, clock, quota });
  const { key: apiKey } = await store.apiKeys.create({
    plan: options.plan ?? 'business',
    ...(options.limits ? { limits: options.limits } : {}),
  });
  const server = await listen(createRestHandler({ store, ...options.handler }));
  return {
    base: `${server.url}/v1`,
    store,
    apiKey,
    auth: { authorization: `Bearer ${apiKey}` },
    clock,
    database: opened,
    async close() {
      await server.close();
      await quota.close();
      await opened.close();
    },
  };
}

/**
 * Asserts an Error response: its status, its code, a JSON media type and exactly `code`, `message`, `status`
 * (and `details` when present); returns the body.
 * @example const body = await expectError(response, 400, 'invalid_request')
 */
export async function expectError(response: Response, status: number, code: string) {
  const body = (await response.json()) as { code: string; message: string; status: number; details?: { path: string; message: string }[] };
  expect(response.headers.get('content-type')).toMatch(/^application\/json\b/);
  expect({ status: response.status, code: body.code }).toEqual({ status, code });
  expect(body.status).toBe(status);
  expect(typeof body.message).toBe('string');
  expect(Object.keys(body).sort()).toEqual(body.details ? ['code', 'details', 'message', 'status'] : ['code', 'message', 'status']);
  return body;
}

/**
 * The paths named in a 400's `details`, sorted.
 * @example expect(await failingFields(response)).toEqual(['name'])
 */
export async function failingFields(response: Response): Promise<string[]> {
  const body = await expectError(response, 400, 'invalid_request');
  return [...new Set((body.details ?? []).map((d) => d.path))].sort();
}
