import { Agent } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { send, sleep } from '../faults/load.js';
import { startProcess, type ServerProcess } from '../helpers.js';
import { serverDatabases } from './databases.js';
import { ENTERPRISE_ENTRY, ENTERPRISE_KEY } from './legitimate-client.js';
import { attack, quantile, type AttackRequest } from './trpc-batch-attack.js';

// A flood of /healthz from one address (128 connections, the outside trial's) must cost an enterprise client no more
// than the same flood of key-less API requests does: /healthz is counted against the address as they are, and its
// dependency check is shared and reused for a second. Measured side by side, in alternating rounds of a second each,
// so that a machine whose load drifts weighs on both alike; each round's ratio of medians, and the median of those.

const CONNECTIONS = 128;
const ROUNDS = 5;
const ROUND_MS = 1_000;
const health: AttackRequest = { method: 'GET', path: '/healthz' };
const keyless: AttackRequest = { method: 'GET', path: '/v1/pets?limit=5' };

/**
 * The enterprise client: one keep-alive connection, a list then a create (which needs the database, as a health
 * check does), one request after another until `until` resolves; each answer's status and time (ms, sub-millisecond).
 */
async function enterpriseClient(url: string, until: Promise<unknown>) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const served = { statuses: [] as number[], latencies: [] as number[] };
  let running = true;
  void until.then(() => (running = false));
  const headers = { authorization: `Bearer ${ENTERPRISE_KEY}` };
  for (let i = 0; running; i++) {
    const started = performance.now();
    const outcome =
      i % 2 === 0
        ? await send({ url, agent, method: 'GET', path: '/v1/pets?limit=5', headers, timeoutMs: 10_000 })
        : await send({
            url,
            agent,
            method: 'POST',
            path: '/v1/pets',
            headers: { ...headers, 'content-type': 'application/json' },
            body: JSON.stringify({ name: `Flooded ${i}`, categoryId: 1 }),
            timeoutMs: 10_000,
          });
    served.latencies.push(performance.now() - started);
    served.statuses.push(outcome.status);
  }
  agent.destroy();
  return served;
}

describe.each(serverDatabases)('a /healthz flood from one address, on $name', ({ env }) => {
  let server: ServerProcess;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    const database = await env();
    drop = database.drop;
    server = await startProcess({ ...database.env, PETSTORE_API_KEYS: ENTERPRISE_ENTRY });
  });
  afterAll(async () => {
    await server?.stop();
    await drop?.();
  });

  it(`costs an enterprise client no more than a flood of key-less API requests (median within 1.5x)`, { timeout: 120_000 }, async () => {
    // The client's key has succeeded from this address before the floods put the address over its limit.
    const quiet = await enterpriseClient(server.url, sleep(ROUND_MS));
    const ratios: number[] = [];
    const medians: { health: number; keyless: number }[] = [];
    const healthAnswers = new Map<number, number>();
    for (let round = 0; round < ROUNDS; round++) {
      const measured: Partial<Record<'health' | 'keyless', number>> = {};
      // Alternating which flood goes first, so that neither always follows the other.
      const order = round % 2 === 0 ? (['health', 'keyless'] as const) : (['keyless', 'health'] as const);
      for (const flood of order) {
        const ends = sleep(ROUND_MS);
        const [answers, served] = await Promise.all([
          attack(server.url, CONNECTIONS, () => (flood === 'health' ? health : keyless), ends),
          enterpriseClient(server.url, ends),
        ]);
        expect(served.statuses.filter((status) => status !== 200 && status !== 201)).toEqual([]);
        if (flood === 'health') for (const { status } of answers) healthAnswers.set(status, (healthAnswers.get(status) ?? 0) + 1);
        measured[flood] = quantile(served.latencies, 0.5);
      }
      medians.push({ health: measured.health!, keyless: measured.keyless! });
      ratios.push(measured.health! / measured.keyless!);
    }
    const ratio = quantile(ratios, 0.5);
    console.log(
      JSON.stringify({
        attack: `/healthz from one address, ${CONNECTIONS} connections`,
        quietMedianMs: quantile(quiet.latencies, 0.5),
        roundMediansMs: medians,
        medianRatio: ratio,
        healthAnswers: Object.fromEntries(healthAnswers),
      }),
    );
    expect(ratio).toBeLessThanOrEqual(1.5);
  });
});
