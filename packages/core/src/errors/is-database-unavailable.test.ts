import { databaseUrl } from '@petstore/testing';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { isDatabaseUnavailable } from './is-database-unavailable.js';
import { PetStoreError } from './pet-store-error.js';

const coded = (code: string, message = 'failed') => Object.assign(new Error(message), { code });

/** What `pg` throws for `text` on its own connection to `url`. */
async function errorOf(url: string, ...statements: string[]): Promise<unknown> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => {});
  try {
    await client.connect();
    for (const text of statements) await client.query(text);
  } catch (error) {
    return error;
  } finally {
    await client.end().catch(() => {});
  }
  throw new Error(`expected ${statements.join('; ')} to fail`);
}

describe('telling an outage from a fault', () => {
  it.each([
    'ECONNREFUSED',
    'ECONNRESET',
    'ETIMEDOUT',
    'EPIPE',
    'ENOTFOUND',
    'EHOSTUNREACH',
    '08006',
    '08001',
    '08P01',
    '57P01',
    '57P02',
    '57P03',
    '53300',
    '28P01',
    '28000',
    '3D000',
  ])('calls %s an outage', (code) => {
    expect(isDatabaseUnavailable(coded(code))).toBe(true);
  });

  it.each(['42P05', '42601', '23505', '42P01', '26000', '25P02', '40001', '57014', '53200', '22P02'])('calls %s a fault', (code) => {
    expect(isDatabaseUnavailable(coded(code))).toBe(false);
  });

  it('finds an outage in a cause or among the errors of an AggregateError, and calls anything else a fault', () => {
    expect(isDatabaseUnavailable(new Error('wrapped', { cause: coded('ECONNREFUSED') }))).toBe(true);
    expect(isDatabaseUnavailable(new AggregateError([coded('ECONNREFUSED'), coded('ECONNREFUSED')]))).toBe(true);
    expect(isDatabaseUnavailable(new Error('timeout exceeded when trying to connect'))).toBe(true);
    expect(isDatabaseUnavailable(new TypeError("Cannot read properties of undefined (reading 'id')"))).toBe(false);
    expect(isDatabaseUnavailable('ECONNREFUSED')).toBe(false);
  });

  it('takes a failure already classified at its origin for what its code says, whatever its causes say', () => {
    // A client's body that broke off: a 400 whose cause is the request stream's ECONNRESET.
    expect(isDatabaseUnavailable(new PetStoreError('invalid_request', 'broken off', { cause: coded('ECONNRESET') }))).toBe(false);
    expect(isDatabaseUnavailable(new PetStoreError('unavailable', undefined, { cause: coded('ECONNREFUSED') }))).toBe(true);
  });

  it('calls a refused connection an outage, as pg reports it', async () => {
    const error = await errorOf('postgres://postgres:postgres@127.0.0.1:1/petstore');
    expect(error).toMatchObject({ code: 'ECONNREFUSED' });
    expect(isDatabaseUnavailable(error)).toBe(true);
  });
});

describe.skipIf(!databaseUrl)('telling an outage from a fault on PostgreSQL', () => {
  it('calls a missing database an outage (3D000; 08P01 from PgBouncer)', async () => {
    const url = new URL(databaseUrl!);
    url.pathname = '/petstore_no_such_database';
    const error = await errorOf(url.toString());
    expect((error as { code: string }).code).toMatch(/^(3D000|08P01)$/);
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it('calls a connection the server ended an outage (57P01)', async () => {
    const victim = new pg.Client({ connectionString: databaseUrl });
    victim.on('error', () => {});
    await victim.connect();
    const pid = (await victim.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
    const failed = victim.query('select pg_sleep(10)').catch((error: unknown) => error);
    const admin = new pg.Client({ connectionString: databaseUrl });
    await admin.connect();
    await admin.query('select pg_terminate_backend($1)', [pid]);
    await admin.end();
    const error = await failed;
    await victim.end().catch(() => {});
    expect(error).toMatchObject({ code: '57P01' });
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it('calls a pool with no connection to give in time an outage', async () => {
    const pool = new pg.Pool({ connectionString: databaseUrl, max: 1, connectionTimeoutMillis: 200 });
    const held = await pool.connect();
    const error = await pool.query('select 1').catch((e: unknown) => e);
    held.release();
    await pool.end();
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it.each([
    ['42P05', 'a prepared statement made twice', ['prepare twice as select 1', 'prepare twice as select 1']],
    ['42601', 'a statement PostgreSQL cannot parse', ['selec 1']],
    ['23505', 'a duplicate key', ['create temp table t (id int primary key)', 'insert into t values (1), (1)']],
    ['42P01', 'a table that does not exist', ['select * from petstore_no_such_table']],
  ])('calls %s (%s) a fault', async (code, _what, statements) => {
    const error = await errorOf(databaseUrl!, ...statements);
    expect(error).toMatchObject({ code });
    expect(isDatabaseUnavailable(error)).toBe(false);
  });
});
