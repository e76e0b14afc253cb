import { databaseUrl, scratchPostgres } from '@petstore/testing';
import pg from 'pg';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { pgbouncerUnsupported, startPgBouncer, type PgBouncer } from '../pgbouncer.js';

const KEY = 'database-wait-key-0123456789';
/** The recipe's `default_pool_size`: server connections PgBouncer opens to PostgreSQL for one database. */
const SERVER_CONNECTIONS = 16;

// In CI (.ci/run installs PgBouncer) this must run: there it fails instead.
const unsupported = !databaseUrl ? 'DATABASE_URL is not set' : process.env.CI ? undefined : pgbouncerUnsupported();
if (unsupported) console.warn(`skipping the database-wait metric behind PgBouncer: ${unsupported}`);

/** A sample of the metrics text: `name{labels} value`. */
function sample(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  if (!line) throw new Error(`no ${series} in the metrics`);
  return Number(line.slice(series.length + 1));
}

describe.skipIf(unsupported)("the time a request waits for the database, behind the docs' PgBouncer", () => {
  let db: Awaited<ReturnType<typeof scratchPostgres>>;
  let bouncer: PgBouncer;
  let running: RunningServer;
  let pooledUrl: string;

  beforeAll(async () => {
    db = await scratchPostgres();
    bouncer = await startPgBouncer(db.url);
    pooledUrl = new URL(new URL(db.url).pathname, bouncer.url).toString();
    const config = loadConfig({ PORT: '0', PETSTORE_METRICS_PORT: '0', DATABASE_URL: pooledUrl, PETSTORE_API_KEYS: `${KEY}:pro` });
    running = await startServer(config, { logger: pino({ level: 'silent' }) });
  });
  afterAll(async () => {
    await running?.close();
    await bouncer?.stop();
    await db?.drop();
  });

  /** `SHOW POOLS` on PgBouncer's console (its `pgbouncer` database), as the recipe's `stats_users` may. */
  const showPools = async () => {
    const admin = new pg.Client({ connectionString: new URL('/pgbouncer', bouncer.url).toString() });
    await admin.connect();
    try {
      return (await admin.query<Record<string, string>>('SHOW POOLS')).rows;
    } finally {
      await admin.end();
    }
  };

  it("shows a wait in PgBouncer's queue in petstore_db_wait_seconds and in its SHOW POOLS, where the pool's own gauge sees none", { timeout: 60_000 }, async () => {
    const scrape = async () => (await fetch(`${running.metricsUrl}/metrics`)).text();
    const slow = (text: string) =>
      sample(text, 'petstore_db_wait_seconds_count{stage="statement"}') - sample(text, 'petstore_db_wait_seconds_bucket{le="0.5",stage="statement"}');
    const create = () =>
      fetch(`${running.url}/v1/pets`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Waited', categoryId: 1 }),
      });
    expect((await create()).status).toBe(201);
    const before = await scrape();
    expect(slow(before)).toBe(0);
    expect(sample(before, 'petstore_db_wait_seconds_count{stage="acquire"}')).toBeGreaterThan(0);

    // Every server connection PgBouncer may open, held by someone else's slow statement for a second and a half.
    const holders = Array.from({ length: SERVER_CONNECTIONS }, () => new pg.Client({ connectionString: pooledUrl }));
    await Promise.all(holders.map((client) => client.connect()));
    try {
      const held = Promise.all(holders.map((client) => client.query('select pg_sleep(1.5)')));
      await new Promise((resolve) => setTimeout(resolve, 300));
      const [answer, during, pools] = await Promise.all([
        create(),
        new Promise<string>((resolve) => setTimeout(() => void scrape().then(resolve), 300)),
        new Promise<Record<string, string>[]>((resolve, reject) => setTimeout(() => void showPools().then(resolve, reject), 300)),
      ]);
      expect(answer.status).toBe(201);
      // PgBouncer's console, as the recipe's stats user reads it: the create waiting in its queue.
      const pool = pools.find((row) => row.database === new URL(db.url).pathname.slice(1));
      expect(Number(pool?.cl_waiting), JSON.stringify(pools)).toBeGreaterThanOrEqual(1);
      await held;
      // The service's own pool had connections to spare: its gauge never saw a request waiting.
      expect(sample(during, 'petstore_db_pool_connections{state="waiting"}')).toBe(0);
    } finally {
      await Promise.all(holders.map((client) => client.end()));
    }
    expect(slow(await scrape())).toBeGreaterThan(0);
  });
});
