import { expect } from 'vitest';
import { startLoad, type Outcome } from '../faults/load.js';

/** An enterprise key that the attacks never use: its client must be served throughout. */
export const ENTERPRISE_KEY = 'hostile-enterprise-key-0123456789';
/** `PETSTORE_API_KEYS` for that key, with limits no test reaches. */
export const ENTERPRISE_ENTRY = `${ENTERPRISE_KEY}:enterprise:100000000:1000000000`;

/**
 * A legitimate client beside an attack: two keep-alive connections with the enterprise key, listing and (a fifth of
 * the time, unless `createShare` says otherwise: 0 when a write would clear what the attack fills) creating, one
 * request after another until stopped.
 * @example const client = startLegitimateClient(server.url); …attack…; expectServed(await client.stop())
 */
export function startLegitimateClient(url: string, { createShare = 0.2 } = {}) {
  return startLoad({ url, key: ENTERPRISE_KEY, clients: 2, createShare, timeoutMs: 5_000 });
}

/**
 * Asserts that a legitimate client was served throughout: every request answered 2xx (never 503, never dropped),
 * at least `atLeast` of them, and the slowest under `slowestMs` (generous: CI shares 2 cores with other tests).
 */
export function expectServed(outcomes: readonly Outcome[], { atLeast = 20, slowestMs = 5_000 } = {}) {
  const failed = outcomes.filter((o) => o.status < 200 || o.status > 299);
  expect(failed.map((o) => `${o.status} ${o.error ?? o.body.slice(0, 80)}`)).toEqual([]);
  expect(outcomes.length).toBeGreaterThanOrEqual(atLeast);
  expect(Math.max(...outcomes.map((o) => o.endedAt - o.sentAt))).toBeLessThan(slowestMs);
}
