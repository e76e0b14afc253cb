import { PetStoreError } from '@petstore/core';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProcess, type ServerProcess } from '../helpers.js';
import { send, sleep, startLoad, type Outcome } from './load.js';
import { startThrowawayPostgres, throwawayPostgresUnsupported, type ThrowawayPostgres } from './throwaway-postgres.js';

// In CI (.ci/run runs as root after installing PostgreSQL) these tests must run: there they fail instead.
const unsupported = process.env.CI ? undefined : throwawayPostgresUnsupported();
if (unsupported) console.warn(`skipping the PostgreSQL outage tests: ${unsupported}`);

/** Every request is answered within this bound, outage or not. */
const ANSWER_BOUND_MS = 6_000;
/** After PostgreSQL accepts connections again, the first 2xx comes within this bound. */
const RECOVERY_BOUND_MS = 2_000;
const DOWN_MS = 2_500;
const key = 'outage-key-0123456789';
const unavailableBody = new PetStoreError('unavailable').toBody();

describe.skipIf(unsupported)('the service while PostgreSQL stops and starts under load', () => {
  let postgres: ThrowawayPostgres;
  let server: ServerProcess;
  beforeAll(async () => {
    postgres = await startThrowawayPostgres();
    server = await startProcess({ DATABASE_URL: postgres.url, PETSTORE_API_KEYS: `${key}:enterprise:100000000:1000000000` });
  });
  afterAll(async () => {
    await server?.stop('SIGKILL');
    await postgres?.destroy();
  });

  it('stays up, answers only 503 unavailable while down, recovers within 2 s and loses no acknowledged create', { timeout: 90_000 }, async () => {
    const load = startLoad({ url: server.url, key, clients: 20, createShare: 0.5, timeoutMs: ANSWER_BOUND_MS + 4_000 });
    const cycles: { mode: string; stoppedAt: number; startedAt: number; healthDown: number; healthUp: number }[] = [];
    await sleep(1_000);
    for (const mode of ['fast', 'immediate', 'fast', 'immediate'] as const) {
      await postgres.stop(mode);
      const stoppedAt = Date.now();
      await sleep(DOWN_MS);
      const healthDown = (await send({ url: server.url, method: 'GET', path: '/healthz', timeoutMs: ANSWER_BOUND_MS })).status;
      await postgres.start();
      const startedAt = Date.now();
      await sleep(RECOVERY_BOUND_MS + 500);
      const healthUp = (await send({ url: server.url, method: 'GET', path: '/healthz', timeoutMs: ANSWER_BOUND_MS })).status;
      cycles.push({ mode, stoppedAt, startedAt, healthDown, healthUp });
      expect(server.child.exitCode, `the process ended after a ${mode} stop:\n${server.stderr().slice(-2_000)}`).toBeNull();
    }
    const outcomes = await load.stop();

    expect(server.child.exitCode, server.stderr().slice(-2_000)).toBeNull();
    const unanswered = outcomes.filter((o) => o.status === 0);
    expect(unanswered.map((o) => o.error)).toEqual([]);
    const slowest = Math.max(...outcomes.map((o) => o.endedAt - o.sentAt));
    expect(slowest).toBeLessThan(ANSWER_BOUND_MS);
    const statuses = new Set(outcomes.map((o) => o.status));
    expect([...statuses].sort()).toEqual([200, 201, 503]);
    for (const refused of outcomes.filter((o) => o.status === 503)) expect(JSON.parse(refused.body)).toStrictEqual(unavailableBody);

    for (const cycle of cycles) {
      expect(cycle, JSON.stringify(cycle)).toMatchObject({ healthDown: 503, healthUp: 200 });
      const firstSuccess = outcomes
        .filter((o) => o.status >= 200 && o.status < 300 && o.endedAt >= cycle.startedAt)
        .reduce((first, o) => Math.min(first, o.endedAt), Infinity);
      expect(firstSuccess - cycle.startedAt, `first 2xx after the ${cycle.mode} stop`).toBeLessThan(RECOVERY_BOUND_MS);
      const refusedWhileDown = outcomes.filter((o) => o.status === 503 && o.sentAt >= cycle.stoppedAt && o.endedAt <= cycle.startedAt);
      expect(refusedWhileDown.length, `503s while down after the ${cycle.mode} stop`).toBeGreaterThan(0);
    }

    const created = outcomes.filter((o): o is Outcome => o.kind === 'create' && o.status === 201).map((o) => JSON.parse(o.body).id as number);
    expect(created.length).toBeGreaterThan(100);
    const client = new pg.Client({ connectionString: postgres.url });
    client.on('error', () => {});
    await client.connect();
    try {
      const { rows } = await client.query<{ id: string }>('select id from pets where id = any($1::bigint[])', [created]);
      const stored = new Set(rows.map((r) => Number(r.id)));
      expect(created.filter((id) => !stored.has(id))).toEqual([]);
    } finally {
      await client.end();
    }
    console.info(
      `PostgreSQL outage: ${outcomes.length} requests, ${created.length} creates acknowledged and kept, ` +
        `${outcomes.filter((o) => o.status === 503).length} refused with 503, slowest answer ${slowest} ms, ` +
        `recovery ${cycles.map((c) => `${c.mode} ${outcomes.filter((o) => o.status < 300 && o.status >= 200 && o.endedAt >= c.startedAt).reduce((f, o) => Math.min(f, o.endedAt), Infinity) - c.startedAt} ms`).join(', ')}`,
    );
  });

  it('logs a 10-second outage under load as two lines without a stack, and keeps the stack of a real fault', { timeout: 60_000 }, async () => {
    const admin = new pg.Client({ connectionString: postgres.url });
    admin.on('error', () => {});
    await admin.connect();
    await admin.query('create database outage_log');
    await admin.end();
    const url = postgres.url.replace(/\/postgres$/, '/outage_log');
    const logged = await startProcess({ DATABASE_URL: url, PETSTORE_LOG_LEVEL: 'info', PETSTORE_API_KEYS: `${key}:enterprise:100000000:1000000000` });
    try {
      const load = startLoad({ url: logged.url, key, clients: 20, timeoutMs: ANSWER_BOUND_MS + 4_000 });
      await sleep(1_000);
      await postgres.stop('fast');
      await sleep(10_000);
      await postgres.start();
      await sleep(2_000);
      const outcomes = await load.stop();
      const refused = outcomes.filter((o) => o.status === 503).length;
      expect(refused).toBeGreaterThan(100);

      const lines = logged.stdout().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);
      const events = lines.filter((l) => l.msg !== 'request' && l.msg !== 'Pet Store listening');
      expect(events.map((l) => l.msg)).toEqual(['database unavailable: answering 503 until it returns', 'database available again']);
      expect(events[0]).toMatchObject({ level: 50, dependency: 'database', cause: { message: expect.any(String) } });
      expect(events[1]).toMatchObject({ level: 40, dependency: 'database', refused, downForMs: expect.any(Number) });
      expect(events[1]!.downForMs as number).toBeGreaterThan(9_000);
      expect(logged.stdout()).not.toContain('"stack"');
      console.info(`outage log: ${lines.length} lines in all for ${outcomes.length} requests, ${events.length} outage lines, ${refused} refused`);

      const fault = new pg.Client({ connectionString: url });
      fault.on('error', () => {});
      await fault.connect();
      await fault.query('alter table pets rename to pets_gone');
      await fault.end();
      const failed = await send({
        url: logged.url,
        method: 'POST',
        path: '/v1/pets',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Fault', categoryId: 1 }),
      });
      expect(failed.status).toBe(500);
      await sleep(200);
      const faultLines = logged.stdout().split('\n').filter((l) => l.includes('"msg":"request failed"')).map((l) => JSON.parse(l));
      expect(faultLines).toHaveLength(1);
      expect(faultLines[0]).toMatchObject({ level: 50, code: 'internal_error', err: { stack: expect.stringContaining('pets') } });
    } finally {
      await logged.stop('SIGKILL');
    }
  });
});
