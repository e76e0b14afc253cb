import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProcess } from '../helpers.js';
import { allPetIds, sleep, startLoad } from './load.js';

const key = 'kill-nine-key-0123456789';

describe('kill -9 under create load on the embedded database', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'petstore-kill-'));
  });
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  it('comes up again after each of three kills with every acknowledged create present', { timeout: 90_000 }, async () => {
    const env = { PETSTORE_DATA_DIR: dataDir, PETSTORE_API_KEYS: `${key}:enterprise:100000000:1000000000` };
    const acknowledged: number[] = [];
    const perCycle: number[] = [];
    for (let cycle = 0; cycle < 3; cycle++) {
      const startedAt = Date.now();
      const server = await startProcess(env);
      const upAfter = Date.now() - startedAt;
      if (cycle > 0) {
        const stored = await allPetIds(server.url, key);
        expect(acknowledged.filter((id) => !stored.has(id)), `lost after kill ${cycle}`).toEqual([]);
      }
      const load = startLoad({ url: server.url, key, clients: 20, createShare: 1, timeoutMs: 10_000 });
      await sleep(1_500 + Math.random() * 500);
      server.child.kill('SIGKILL');
      const outcomes = await load.stop();
      await server.stop();
      const created = outcomes.filter((o) => o.status === 201).map((o) => JSON.parse(o.body).id as number);
      expect(created.length).toBeGreaterThan(50);
      expect(outcomes.filter((o) => o.status !== 201 && o.status !== 0)).toEqual([]);
      acknowledged.push(...created);
      perCycle.push(created.length);
      console.info(`kill -9 cycle ${cycle + 1}: up in ${upAfter} ms, ${created.length} creates acknowledged before the kill`);
    }
    const server = await startProcess(env);
    try {
      const stored = await allPetIds(server.url, key);
      expect(acknowledged.filter((id) => !stored.has(id)), 'lost after the last kill').toEqual([]);
      expect(new Set(acknowledged).size).toBe(acknowledged.length);
    } finally {
      expect(await server.stop()).toBe(0);
    }
    console.info(`kill -9: ${perCycle.join(', ')} acknowledged creates, all present after each restart`);
  });
});
