import { databaseUrl, scratchPostgres } from '@petstore/testing';
import { describe, expect, it } from 'vitest';
import { ENTERPRISE_ENTRY, expectServed, startLegitimateClient } from './legitimate-client.js';
import { flood, retainedHeap, startProbedProcess } from './retained-heap.js';

// The review's attack: 1,000 pets with 255-emoji names, then 1,000 forged cursors, took the V8 heap from 117 to
// 326 MB, kept until a create on that instance. Pages are now held within a byte budget and expire by time.
const OWNER = 'hostile-owner-key-000001';
const ATTACKER = 'hostile-attacker-key-0001';
const PETS = 1_000;
const cursorAfter = (id: number) => Buffer.from(`p1.${id.toString(36)}`).toString('base64url');

const databases = [
  { name: 'the embedded database', open: async () => ({ env: { PETSTORE_DATA_DIR: 'memory://' }, drop: async () => {} }) },
  ...(databaseUrl
    ? [{ name: 'PostgreSQL', open: async () => {
        const scratch = await scratchPostgres();
        return { env: { DATABASE_URL: scratch.url }, drop: scratch.drop };
      } }]
    : []),
];

describe.each(databases)('forged cursors over long names on $name', ({ open }) => {
  it('keep the cached pages within their budget and let them go after a second, while a client is served throughout', { timeout: 300_000 }, async () => {
    const database = await open();
    const keys = `${ENTERPRISE_ENTRY},${OWNER}:enterprise:1000000:100000000,${ATTACKER}:enterprise:1000000:100000000`;
    const server = await startProbedProcess({ ...database.env, PETSTORE_API_KEYS: keys });
    try {
      const as = (key: string) => ({ authorization: `Bearer ${key}`, 'content-type': 'application/json' });
      const name = '🐶'.repeat(255);
      const created = await flood(PETS, 8, () =>
        fetch(`${server.url}/v1/pets`, { method: 'POST', headers: as(OWNER), body: JSON.stringify({ name, categoryId: 1 }) }),
      );
      expect(created.get(201)).toBe(PETS);
      const legitimate = () => fetch(`${server.url}/v1/pets?limit=20`, { headers: as(OWNER) });
      expect((await legitimate()).status).toBe(200);
      const before = await retainedHeap(server);

      // Reads only: a create would clear the cache the attack fills.
      const client = startLegitimateClient(server.url, { createShare: 0 });
      const attack = await flood(PETS, 8, (i) => fetch(`${server.url}/v1/pets?limit=100&cursor=${cursorAfter(i)}`, { headers: as(ATTACKER) }));
      expectServed(await client.stop());
      expect(attack.get(200)).toBe(PETS);
      // 1,000 pages of up to 100 such pets are over 100 MB; the budget is 8 MiB of them.
      const held = (await retainedHeap(server)) - before;
      expect(held, `${(held / 1e6).toFixed(1)} MB held`).toBeLessThan(25e6);

      // No write comes; a second later the next read sweeps the expired pages away.
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      expect((await legitimate()).status).toBe(200);
      const after = (await retainedHeap(server)) - before;
      expect(after, `${(after / 1e6).toFixed(1)} MB held a second later`).toBeLessThan(5e6);
    } finally {
      await server.stop();
      await database.drop();
    }
  });
});
