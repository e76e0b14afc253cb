import { createConnection } from 'node:net';
import { databaseUrl, processClock, redisUrl, scratchPostgres, type ProcessClock } from '@petstore/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProcess, type ServerProcess } from '../helpers.js';
import { send } from '../faults/load.js';

const FREE_KEY = 'hostile-burst-free-key-0123456789';

/** PgBouncer in front of the test server (`.ci/start-pgbouncer.sh`: port 6432 on DATABASE_URL's host), if it runs. */
async function pgbouncerUrl(url: string): Promise<string | undefined> {
  const pooled = new URL(url);
  pooled.port = '6432';
  const open = await new Promise<boolean>((resolve) => {
    const socket = createConnection({ host: pooled.hostname, port: 6432 }, () => (socket.destroy(), resolve(true)));
    socket.on('error', () => resolve(false));
  });
  // CI always starts it: there, a missing PgBouncer is a failure, not a skip.
  if (!open && process.env.CI) throw new Error(`PgBouncer is not listening on ${pooled.host} (.ci/start-pgbouncer.sh starts it)`);
  return open ? pooled.toString() : undefined;
}

type Setup = { name: string; env: () => Promise<{ env: Record<string, string>; drop: () => Promise<void> }> };
const none = async () => {};
const onPostgres = (extra: Record<string, string>, pooled = false) => async () => {
  const scratch = await scratchPostgres();
  const url = pooled ? await pgbouncerUrl(scratch.url) : scratch.url;
  return { env: { DATABASE_URL: url!, ...extra }, drop: scratch.drop };
};
const setups: Setup[] = [
  { name: 'the embedded database', env: async () => ({ env: { PETSTORE_DATA_DIR: 'memory://' }, drop: none }) },
  ...(databaseUrl
    ? [
        { name: 'PostgreSQL', env: onPostgres({}) },
        { name: 'PostgreSQL through PgBouncer', env: onPostgres({}, true) },
        ...(redisUrl
          ? [{ name: 'the Redis limiter', env: onPostgres({ PETSTORE_RATE_LIMIT_STORE: 'redis', REDIS_URL: redisUrl, PETSTORE_REDIS_KEY_PREFIX: `burst-${process.pid}-${Date.now()}` }) }]
          : []),
      ]
    : []),
];

describe.each(setups)('a burst on $name', ({ env }) => {
  let server: ServerProcess;
  let drop: () => Promise<void>;
  // The plan's minute is a clock minute: the server's clock is one the test controls.
  let clock: ProcessClock;
  beforeAll(async () => {
    const setup = await env();
    drop = setup.drop;
    clock = await processClock();
    server = await startProcess({ ...setup.env, ...clock.env, PETSTORE_API_KEYS: `${FREE_KEY}:free` });
  });
  afterAll(async () => {
    await server?.stop();
    await drop?.();
    await clock?.close();
  });

  it('of 75 concurrent requests on a free key gets exactly 60 answers and 15 429s, never a 503', { timeout: 60_000 }, async () => {
    // Keep the burst within one minute.
    await clock.minuteWithRoom(20);
    const outcomes = await Promise.all(
      Array.from({ length: 75 }, () =>
        send({ url: server.url, method: 'GET', path: '/v1/pets?limit=5', headers: { authorization: `Bearer ${FREE_KEY}` }, timeoutMs: 15_000 }),
      ),
    );
    const statuses = outcomes.map((o) => o.status || o.error);
    expect(statuses.filter((s) => s === 200)).toHaveLength(60);
    expect(statuses.filter((s) => s === 429)).toHaveLength(15);
  });
});
