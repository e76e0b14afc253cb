import { databaseUrl } from '@petstore/testing';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { openPetStore, PetStoreError, type OpenPetStoreOptions } from './index.js';

// Nothing listens on port 1: every connection is refused at once.
const nowhere = 'postgres://petstore_user:secret-password@127.0.0.1:1/petstore';

async function refusedOpening(options: OpenPetStoreOptions) {
  const error = await openPetStore(options).then(
    (opened) => opened.close().then(() => expect.unreachable('the store opened')),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(PetStoreError);
  return error as PetStoreError;
}

describe('opening the store while its database cannot be reached', () => {
  it.each([
    ['databaseUrl', {}],
    ['databaseUrl with migrate: false', { migrate: false }],
    ['databaseUrl with a schema and migrate: false', { schema: 'petstore', migrate: false }],
  ] as const)("throws PetStoreError('unavailable') naming the database, not its password, on %s", async (_given, rest) => {
    const error = await refusedOpening({ databaseUrl: nowhere, ...rest });
    expect({ code: error.code, status: error.status }).toEqual({ code: 'unavailable', status: 503 });
    expect(error.message).toBe(
      "The pet store's database at 127.0.0.1:1/petstore cannot be reached, so the store did not open: connect ECONNREFUSED 127.0.0.1:1",
    );
    expect(error.message).not.toContain('secret-password');
    expect(error.cause).toMatchObject({ code: 'ECONNREFUSED' });
  });

  it("throws the same on a host's pool and a host's Kysely, which it leaves open", async () => {
    const pool = new pg.Pool({ connectionString: nowhere });
    pool.on('error', () => {});
    const onPool = await refusedOpening({ pool, migrate: false });
    expect(onPool.message).toContain('database at 127.0.0.1:1/petstore cannot be reached');
    expect(onPool.cause).toMatchObject({ code: 'ECONNREFUSED' });
    const db = new Kysely<any>({ dialect: new PostgresDialect({ pool: new pg.Pool({ host: '127.0.0.1', port: 1, password: 'secret-password' }) }) });
    const onKysely = await refusedOpening({ db });
    // A Kysely keeps its pool's options to itself: the address is the refused connection's.
    expect(onKysely.message).toBe(
      "The pet store's database at 127.0.0.1:1 cannot be reached, so the store did not open: connect ECONNREFUSED 127.0.0.1:1",
    );
    expect(pool.ended).toBe(false);
    await pool.end();
    await db.destroy();
  });
});

describe.skipIf(!databaseUrl)('opening the store on a PostgreSQL server without its database', () => {
  it("throws PetStoreError('unavailable') naming the database, with PostgreSQL's 3D000 as its cause", async () => {
    const url = new URL(databaseUrl!);
    url.pathname = '/petstore_no_such_database';
    const error = await refusedOpening({ databaseUrl: url.toString() });
    expect(error.code).toBe('unavailable');
    expect(error.message).toContain(`database at ${url.hostname}:${url.port || 5432}/petstore_no_such_database cannot be reached`);
    expect(error.message).not.toContain(url.password || 'never-in-a-message');
    expect(error.cause).toMatchObject({ code: expect.stringMatching(/^(3D000|08P01)$/) });
  });
});
