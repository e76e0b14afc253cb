import { databaseUrl, scratchPostgres } from '@petstore/testing';
import pg from 'pg';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { pgbouncerUnsupported, startPgBouncer, type PgBouncer } from '../pgbouncer.js';

const KEY = 'database-hold-key-0123456789';

const unsupported = !databaseUrl ? 'DATABASE_URL is not set' : process.env.CI ? undefined : pgbouncerUnsupported();
if (unsupported) console.warn(`skipping the database-wait metric under a PgBouncer hold: ${unsupported}`);

/** The histogram's series of a stage: its count and its buckets, from the metrics text. */
function histogram(text: string, stage: string) {
  const buckets = new Map<string, number>();
  let count = 0;
  for (const line of text.split('\n')) {
    const bucket = new RegExp(`^petstore_db_wait_seconds_bucket\\{le="([^"]+)",stage="${stage}"\\} (\\d+)$`).exec(line);
    if (bucket) buckets.set(bucket[1]!, Number(bucket[2]));
    if (line.startsWith(`petstore_db_wait_seconds_count{stage="${stage}"} `)) count = Number(line.split(' ')[1]);
  }
  return { count, above: (le: string) => count - (buckets.get(le) ?? 0) };
}

describe.skipIf(unsupported)('petstore_db_wait_seconds while PgBouncer holds every statement (PAUSE)', () => {
  let db: Awaited<ReturnType<typeof scratchPostgres>>;
  let bouncer: PgBouncer;
  let running: RunningServer;

  beforeAll(async () => {
    db = await scratchPostgres();
    bouncer = await startPgBouncer(db.url, { admin: true });
    const pooledUrl = new URL(new URL(db.url).pathname, bouncer.url).toString();
    const config = loadConfig({ PORT: '0', PETSTORE_METRICS_PORT: '0', DATABASE_URL: pooledUrl, PETSTORE_API_KEYS: `${KEY}:enterprise` });
    running = await startServer(config, { logger: pino({ level: 'silent' }) });
  });
  afterAll(async () => {
    await running?.close();
    await bouncer?.stop();
    await db?.drop();
  });

  // Reported by an operator: 30 requests that each waited 1.1-2.3 s through a 2 s hold gave 19 observations, 2 above
  // 1 s. The service shares its statements: one count for a key's concurrent requests, one insert for the creates that
  // come meanwhile, one load of a cached page. Only the statements in flight when the hold began were observed above
  // it; the requests queued behind them, in the service itself, were not. `call` observes each request's wait.
  it("has each request's wait through the hold once, above 1 s, as stage call", { timeout: 60_000 }, async () => {
    const scrape = async () => (await fetch(`${running.metricsUrl}/metrics`)).text();
    const headers = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
    const create = (i: number) => fetch(`${running.url}/v1/pets`, { method: 'POST', headers, body: JSON.stringify({ name: `Held ${i}`, categoryId: 1 }) });
    const read = (i: number) => fetch(`${running.url}/v1/pets?limit=${(i % 5) + 1}`, { headers });
    expect((await create(0)).status).toBe(201);
    expect((await read(0)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    const before = await scrape();

    const admin = new pg.Client({ connectionString: new URL('/pgbouncer', bouncer.url).toString() });
    await admin.connect();
    const waited: number[] = [];
    try {
      await admin.query('PAUSE');
      const started = performance.now();
      const calls = Array.from({ length: 30 }, async (_, i) => {
        const sent = performance.now();
        const answer = await (i % 2 === 0 ? create(i) : read(i));
        waited.push((performance.now() - sent) / 1000);
        return answer.status;
      });
      await new Promise((resolve) => setTimeout(resolve, 2_000 - (performance.now() - started)));
      await admin.query('RESUME');
      expect(await Promise.all(calls)).toEqual(Array.from({ length: 30 }, (_, i) => (i % 2 === 0 ? 201 : 200)));
    } finally {
      await admin.end();
    }
    const after = await scrape();
    const report = (stage: string) => {
      const [was, now] = [histogram(before, stage), histogram(after, stage)];
      return { count: now.count - was.count, above1s: now.above('1') - was.above('1'), above05: now.above('0.5') - was.above('0.5') };
    };
    expect(Math.min(...waited)).toBeGreaterThan(1.5);
    const [call, statement] = [report('call'), report('statement')];
    // Every request waited for its count through the hold (and the creates and reads for their data after it).
    expect(call.above1s, JSON.stringify({ call, statement })).toBeGreaterThanOrEqual(30);
    // The statements themselves were far fewer: the cause of the gap, said here so a change of it is seen.
    expect(statement.count, JSON.stringify({ call, statement })).toBeLessThan(30);
  });
});
