import { migrateToLatest } from '@petstore/core';
import { openDatabase } from '@petstore/embed';
import { processClock, scratchPostgres, type ProcessClock } from '@petstore/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { send, startHaproxy, type Answer, type Balancer } from './haproxy.js';
import { runCli, startProcess, type ServerProcess } from './helpers.js';
import { fleetUnsupported, startPgBouncer, type PgBouncer } from './pgbouncer.js';

// In CI (.ci/run installs PgBouncer and HAProxy) these tests must run: there they fail instead.
const unsupported = fleetUnsupported('the fleet behind PgBouncer');

/**
 * Advisory locks held on the database at `url`, seen on a connection of its own (never through PgBouncer). Only that
 * database's: pg_locks lists the whole server's, where other tests migrate at the same moment.
 */
async function advisoryLocks(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>(`select count(*) as n from pg_locks where locktype = 'advisory' and database = (select oid from pg_database where datname = current_database())`);
    return Number(rows[0]!.n);
  } finally {
    await client.end();
  }
}

// The quota counters in PostgreSQL (the default with DATABASE_URL), every connection through PgBouncer.
describe.skipIf(unsupported)('a fleet of three instances behind HAProxy, on one PostgreSQL behind PgBouncer in transaction pooling', () => {
  let db: Awaited<ReturnType<typeof scratchPostgres>>;
  let bouncer: PgBouncer;
  let instances: ServerProcess[];
  let balancer: Balancer;
  let port: number;
  const answers: Answer[] = [];
  let pooledUrl: string;
  // The quota counts per clock minute: the instances share a clock the test controls.
  let clock: ProcessClock;
  const env = () => ({ DATABASE_URL: pooledUrl });
  const through = async (path: string, options: Parameters<typeof send>[2] = {}) => {
    const answer = await send(port, path, options);
    answers.push(answer);
    return answer;
  };

  beforeAll(async () => {
    db = await scratchPostgres();
    // The documented 16 server connections: fewer than the instances' pools hold together (3 × 10), as fleets size it.
    bouncer = await startPgBouncer(db.url);
    pooledUrl = new URL(new URL(db.url).pathname, bouncer.url).toString();
    clock = await processClock();
    // All three start at once: each migrates the empty database through PgBouncer.
    instances = await Promise.all([0, 1, 2].map(() => startProcess({ ...env(), ...clock.env, PETSTORE_TRUST_PROXY: 'true' })));
    balancer = await startHaproxy(instances.map((instance) => instance.url));
    port = balancer.port;
  });
  afterAll(async () => {
    await balancer?.stop();
    await Promise.all((instances ?? []).map((instance) => instance.stop()));
    await bouncer?.stop();
    await db?.drop();
    await clock?.close();
  });

  const newKey = async (plan: string, label: string) => {
    const created = await runCli(['keys', 'create', '--plan', plan, '--label', label], env());
    expect(created.code, created.stderr).toBe(0);
    return created.stdout.trim();
  };

  it('migrates from three instances at once through PgBouncer and leaves no advisory lock held', async () => {
    expect(await advisoryLocks(db.url)).toBe(0);
    const database = await openDatabase({ databaseUrl: pooledUrl, poolSize: 2 });
    try {
      const { rows } = await database.pool!.query<{ n: string }>('select count(*) as n from petstore_migration');
      expect(Number(rows[0]!.n)).toBeGreaterThan(0);
    } finally {
      await database.close();
    }
  });

  it('counts a free key exactly across the instances: 60 of 75 concurrent requests', async () => {
    const key = await newKey('free', 'burst');
    await clock.minuteWithRoom(10);
    const statuses = await Promise.all(
      Array.from({ length: 75 }, () => through('/v1/pets?limit=1', { headers: { authorization: `Bearer ${key}` } }).then((r) => r.status)),
    );
    expect(statuses.filter((status) => status === 200)).toHaveLength(60);
    expect(statuses.filter((status) => status === 429)).toHaveLength(15);
  });

  it('replays an Idempotency-Key on every instance', async () => {
    const key = await newKey('pro', 'idempotent');
    const post = () =>
      through('/v1/pets', {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': 'pooled-order-1' },
        body: JSON.stringify({ name: 'Once', categoryId: 2 }),
      });
    const replies = [await post(), await post(), await post(), await post()];
    const ids = replies.map((reply) => (JSON.parse(reply.body) as { id: number }).id);
    expect(replies.map((reply) => reply.status)).toEqual([201, 201, 201, 201]);
    expect(new Set(ids).size).toBe(1);
    expect(replies.slice(1).map((reply) => reply.headers['idempotent-replayed'])).toEqual(['true', 'true', 'true']);
  });

  it('refuses a revoked key on every instance within one second', async () => {
    const key = await newKey('pro', 'revoked behind the pooler');
    const statuses = async () =>
      Promise.all(Array.from({ length: 6 }, () => through('/v1/pets?limit=1', { headers: { authorization: `Bearer ${key}` } }).then((r) => r.status)));
    expect(await statuses()).toEqual([200, 200, 200, 200, 200, 200]);
    const rows = JSON.parse((await runCli(['keys', 'list', '--json'], env())).stdout) as { id: number; label: string }[];
    const revoked = await runCli(['keys', 'revoke', String(rows.find((row) => row.label === 'revoked behind the pooler')!.id)], env());
    expect(revoked.code, revoked.stderr).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 1_050));
    expect(await statuses()).toEqual([401, 401, 401, 401, 401, 401]);
  });

  it("links to the host the client asked HAProxy for, never to an X-Forwarded-Host the client wrote", async () => {
    const key = await newKey('pro', 'forwarded host');
    const created = await through('/v1/pets', {
      method: 'POST',
      headers: { host: 'api.example.com', authorization: `Bearer ${key}`, 'content-type': 'application/json', 'x-forwarded-host': 'evil.example.net' },
      body: JSON.stringify({ name: 'Forwarded', categoryId: 1 }),
    });
    expect(created.status).toBe(201);
    expect(created.headers['location']).toMatch(/^https:\/\/api\.example\.com\/v1\/pets\/\d+$/);
  });

  it('answered no request with a 5xx and logged no failure', () => {
    expect(answers.length).toBeGreaterThan(80);
    expect(answers.filter((answer) => answer.status >= 500).map((answer) => answer.body)).toEqual([]);
    for (const instance of instances) expect(instance.stdout()).not.toMatch(/"level":(50|60)/);
  });
});

describe.skipIf(unsupported)('migrations through PgBouncer in transaction pooling', () => {
  it('run from four pools at once, each migration once, and leave no advisory lock held', { timeout: 60_000 }, async () => {
    const db = await scratchPostgres();
    const bouncer = await startPgBouncer(db.url);
    const url = new URL(new URL(db.url).pathname, bouncer.url).toString();
    const databases = await Promise.all([0, 1, 2, 3].map(() => openDatabase({ databaseUrl: url, poolSize: 3 })));
    try {
      // Three server connections open first, so that a client's consecutive transactions go to different ones.
      await Promise.all([0, 1, 2].map(() => databases[0]!.pool!.query('select pg_sleep(0.2)')));
      const outcomes = await Promise.allSettled(databases.map((database) => migrateToLatest(database.db)));
      expect(outcomes.filter((outcome) => outcome.status === 'rejected')).toEqual([]);
      expect(await advisoryLocks(db.url)).toBe(0);
      const { rows } = await databases[0]!.pool!.query<{ name: string; n: string }>(
        'select name, count(*) as n from petstore_migration group by name having count(*) > 1',
      );
      expect(rows).toEqual([]);
    } finally {
      await Promise.all(databases.map((database) => database.close()));
      await bouncer.stop();
      await db.drop();
    }
  });
});

describe.skipIf(unsupported)('PgBouncer with no server connection to give', () => {
  it('answers 503 with Retry-After after its query_wait_timeout (5 s), never a hang', { timeout: 60_000 }, async () => {
    const db = await scratchPostgres();
    const bouncer = await startPgBouncer(db.url);
    const url = new URL(new URL(db.url).pathname, bouncer.url).toString();
    const key = 'pooled-wait-key-0123456789';
    const instance = await startProcess({ DATABASE_URL: url, PETSTORE_API_KEYS: `${key}:pro` });
    // Slow transactions from elsewhere hold every one of PgBouncer's 16 server connections (the documented size).
    const holders = Array.from({ length: 16 }, () => new pg.Client({ connectionString: url }));
    for (const holder of holders) {
      holder.on('error', () => {});
      await holder.connect();
      await holder.query('begin');
      await holder.query('select 1');
    }
    try {
      const started = Date.now();
      const answer = await fetch(`${instance.url}/v1/pets?limit=1`, { headers: { authorization: `Bearer ${key}` } });
      const waited = Date.now() - started;
      expect(answer.status).toBe(503);
      expect(answer.headers.get('retry-after')).toBe('1');
      expect(waited).toBeGreaterThanOrEqual(4_500);
      expect(waited).toBeLessThan(12_000);
      await Promise.all(holders.map((holder) => holder.query('commit')));
      await expect.poll(async () => (await fetch(`${instance.url}/v1/pets?limit=1`, { headers: { authorization: `Bearer ${key}` } })).status, { timeout: 10_000 }).toBe(200);
    } finally {
      await Promise.all(holders.map((holder) => holder.end().catch(() => {})));
      await instance.stop();
      await bouncer.stop();
      await db.drop();
    }
  });
});
