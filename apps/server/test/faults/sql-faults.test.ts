import { databaseUrl, scratchPostgres } from '@petstore/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProcess, type ServerProcess } from '../helpers.js';

const key = 'sql-fault-key-0123456789';

describe.skipIf(!databaseUrl)('a fault of the service on PostgreSQL', () => {
  let db: Awaited<ReturnType<typeof scratchPostgres>>;
  let server: ServerProcess;
  beforeAll(async () => {
    db = await scratchPostgres();
    server = await startProcess({ DATABASE_URL: db.url, PETSTORE_API_KEYS: `${key}:pro` });
  });
  afterAll(async () => {
    await server?.stop();
    await db?.drop();
  });

  const create = (name: string) =>
    fetch(`${server.url}/v1/pets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name, categoryId: 1 }),
    });

  it('answers 500 internal_error to a unique violation (23505) and logs its stack and SQLSTATE, not an outage', async () => {
    expect((await create('First')).status).toBe(201);
    // A bug that hands out an id already taken: the sequence set back behind the rows.
    const admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    await admin.query(`select setval(pg_get_serial_sequence('pets', 'id'), 1, false)`);
    await admin.end();

    const answer = await create('Second');
    expect(answer.status).toBe(500);
    expect(answer.headers.get('retry-after')).toBeNull();
    expect(((await answer.json()) as { code: string }).code).toBe('internal_error');
    await new Promise((resolve) => setTimeout(resolve, 100));
    const lines = server.stdout().split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, any>);
    const failed = lines.find((line) => line.msg === 'request failed');
    expect(failed, server.stdout()).toMatchObject({ code: 'internal_error', err: { code: '23505' } });
    expect(failed!.err.stack).toMatch(/duplicate key value violates unique constraint[\s\S]*\n\s+at /);
    expect(lines.filter((line) => /unavailable/.test(String(line.msg)))).toEqual([]);
  });
});
