// What the tRPC batch attacks share: the server on each database, a legitimate client measured beside an attack and
// beside a reference load, the server's CPU time and request lines.
import { readFileSync } from 'node:fs';
import { Agent } from 'node:http';
import { processClock, scratchPostgres, type ProcessClock } from '@petstore/testing';
import { afterAll, beforeAll } from 'vitest';
import { startProcess, type ServerProcess } from '../helpers.js';
import { send, sleep, type Outcome } from '../faults/load.js';

/** The databases a hostile-client test runs the built server on: the embedded one always, PostgreSQL when set. */
export const serverDatabases: { name: string; env(): Promise<{ env: Record<string, string>; drop(): Promise<void> }> }[] = [
  { name: 'the embedded database', env: async () => ({ env: { PETSTORE_DATA_DIR: 'memory://' }, drop: async () => {} }) },
  ...(process.env.DATABASE_URL
    ? [
        {
          name: 'PostgreSQL',
          async env() {
            const scratch = await scratchPostgres();
            return { env: { DATABASE_URL: scratch.url }, drop: scratch.drop };
          },
        },
      ]
    : []),
];

/** The enterprise key of the legitimate client every batch attack runs beside. */
export const LEGIT_KEY = 'hostile-legit-key-0123456789';

/**
 * Starts the service for the suite it is called in, on `database` (one of {@link serverDatabases}), with the
 * legitimate client's enterprise key and any more keys given, on a clock the test moves (its limits count per clock
 * minute: `served.clock.minuteWithRoom(seconds)`); stops it and drops the database afterwards.
 * @example const served = serveForSuite(database); it('…', async () => fetch(served.server.url))
 */
export function serveForSuite(database: (typeof serverDatabases)[number], moreKeys: string[] = []): { server: ServerProcess; clock: ProcessClock } {
  const served = {} as { server: ServerProcess; clock: ProcessClock };
  let drop: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const opened = await database.env();
    drop = opened.drop;
    served.clock = await processClock();
    served.server = await startProcess({
      ...opened.env,
      ...served.clock.env,
      PETSTORE_API_KEYS: [`${LEGIT_KEY}:enterprise:10000000:100000000`, ...moreKeys].join(','),
    });
  });
  afterAll(async () => {
    await served.server?.stop();
    await drop?.();
    await served.clock?.close();
  });
  return served;
}

/** What a legitimate client saw: every answer's status and how long each took (ms). */
export interface Served {
  statuses: number[];
  latencies: number[];
}

/**
 * A legitimate client with its own key: one keep-alive connection, `pets.list` over tRPC and `GET /v1/pets` in turn,
 * one request after another until `until` resolves.
 * @example const served = await legitimateClient(url, key, sleep(2_000))
 */
export async function legitimateClient(url: string, key: string, until: Promise<unknown>): Promise<Served> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const served: Served = { statuses: [], latencies: [] };
  let running = true;
  void until.then(() => (running = false));
  const headers = { authorization: `Bearer ${key}` };
  const paths = ['/trpc/pets.list?input=%7B%22limit%22%3A5%7D', '/v1/pets?limit=5'];
  for (let i = 0; running; i++) {
    const outcome = await send({ url, agent, method: 'GET', path: paths[i % 2]!, headers, timeoutMs: 10_000 });
    served.statuses.push(outcome.status);
    served.latencies.push(outcome.endedAt - outcome.sentAt);
  }
  agent.destroy();
  return served;
}

/**
 * `connections` attackers, each on a connection of its own, sending `request()` one after another until `until`
 * resolves; answers what each got.
 * @example const answers = await attack(url, 4, () => ({ method: 'GET', path }), sleep(2_000))
 */
export async function attack(
  url: string,
  connections: number,
  request: () => AttackRequest,
  until: Promise<unknown>,
): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  let running = true;
  void until.then(() => (running = false));
  await Promise.all(
    Array.from({ length: connections }, async () => {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      while (running) outcomes.push(await send({ url, agent, ...request(), timeoutMs: 10_000 }));
      agent.destroy();
    }),
  );
  return outcomes;
}

/** A request the attack helpers send. */
export type AttackRequest = { method: string; path: string; headers?: Record<string, string>; body?: string };

/** What {@link sideBySide} measured: the attack's answers, and the legitimate client under each load. */
export interface SideBySide {
  answers: Outcome[];
  underAttack: Served;
  underReference: Served;
}

/**
 * A legitimate client served while `connections` connections send the attack, and while the same connections send a
 * reference load instead (the cheapest refusal there is), in alternating rounds of `ms`, so that a machine whose load
 * drifts meanwhile weighs on both alike.
 * @example const { underAttack, underReference } = await sideBySide(url, key, 4, () => batch, () => single)
 */
export async function sideBySide(
  url: string,
  key: string,
  connections: number,
  attackRequest: () => AttackRequest,
  referenceRequest: () => AttackRequest,
  { rounds = 3, ms = 1_000 } = {},
): Promise<SideBySide> {
  const result: SideBySide = { answers: [], underAttack: { statuses: [], latencies: [] }, underReference: { statuses: [], latencies: [] } };
  for (let round = 0; round < rounds; round++) {
    for (const [request, served] of [
      [attackRequest, result.underAttack],
      [referenceRequest, result.underReference],
    ] as const) {
      const ends = sleep(ms);
      const [answers, legitimate] = await Promise.all([attack(url, connections, request, ends), legitimateClient(url, key, ends)]);
      if (request === attackRequest) result.answers.push(...answers);
      served.statuses.push(...legitimate.statuses);
      served.latencies.push(...legitimate.latencies);
    }
  }
  return result;
}

/** The value below which `share` of the values lie (0.5: the median). */
export const quantile = (values: readonly number[], share: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))] ?? Number.NaN;
};

/** The request lines the server logged for a route, parsed. */
export function requestLines(server: ServerProcess, route: string): { status: number; durationMs: number }[] {
  return server
    .stdout()
    .split('\n')
    .filter((line) => line.includes('"msg":"request"') && line.includes(`"route":${JSON.stringify(route)}`))
    .map((line) => JSON.parse(line) as { status: number; durationMs: number });
}

/**
 * The CPU time (user and system, ms) a process has used, from Linux's /proc; the kernel counts it in USER_HZ ticks,
 * which are 10 ms on every Linux ABI.
 * @example const before = cpuMs(server.child.pid!)
 */
export function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}
