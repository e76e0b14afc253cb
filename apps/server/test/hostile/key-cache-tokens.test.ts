import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerProcess } from '../helpers.js';
import { send } from '../faults/load.js';
import { ENTERPRISE_ENTRY, ENTERPRISE_KEY, expectServed, startLegitimateClient } from './legitimate-client.js';
import { flood, retainedHeap, startProbedProcess } from './retained-heap.js';

// The review's attack: distinct 15 KB tokens from one address, each answered 429, grew the heap ~40 MB per 3,000
// (each token was kept in the key cache). A token not shaped like a key now enters no cache.
const TOKENS = 4_000;

describe('distinct 15 KB tokens from one address', () => {
  let server: ServerProcess;
  beforeAll(async () => {
    server = await startProbedProcess({
      PETSTORE_DATA_DIR: 'memory://',
      PETSTORE_API_KEYS: ENTERPRISE_ENTRY,
    });
  });
  afterAll(() => server.stop());

  it('are refused without the heap keeping them, while a key known at that address is served throughout', { timeout: 180_000 }, async () => {
    // The enterprise client succeeds from this address first, so the address being over its limit does not lock it out.
    const first = await send({ url: server.url, method: 'GET', path: '/v1/pets?limit=5', headers: { authorization: `Bearer ${ENTERPRISE_KEY}` } });
    expect(first.status).toBe(200);
    const before = await retainedHeap(server);

    const filler = 'x'.repeat(15_000);
    const client = startLegitimateClient(server.url);
    const statuses = await flood(TOKENS, 16, (i) => fetch(`${server.url}/v1/pets`, { headers: { authorization: `Bearer ${filler}${i}` } }));
    expectServed(await client.stop());

    // 60 a minute are 401 (the address's limit), the rest 429.
    expect([...statuses.keys()].sort()).toEqual([401, 429]);
    expect(statuses.get(429)).toBeGreaterThan(TOKENS / 2);
    // 4,000 tokens of 15 KB are 60 MB; kept, they would all be here.
    const grown = (await retainedHeap(server)) - before;
    expect(grown, `${(grown / 1e6).toFixed(1)} MB kept`).toBeLessThan(15e6);
  });
});
