import { randomBytes } from 'node:crypto';
import { migrateToLatest, PetStoreError } from '@petstore/core';
import { openDatabase, type OpenDatabase } from '@petstore/embed';
import pg from 'pg';
import { expect } from 'vitest';

/** A database a test can run on: PGlite always, PostgreSQL when `DATABASE_URL` is set. */
export interface TestDatabase {
  name: 'pglite' | 'postgres';
  /** Opens a fresh, migrated, empty database; `close` drops it again. */
  open(): Promise<OpenDatabase & { url?: string }>;
}

/** The PostgreSQL server tests use, if any. In CI it is always set. */
export const databaseUrl = process.env.DATABASE_URL || undefined;

async function createScratchDatabase(baseUrl: string) {
  const name = `petstore_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  admin.on('error', () => {}); // a server restart must fail the query, not end the test process
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  const drop = async () => {
    const client = new pg.Client({ connectionString: baseUrl });
    client.on('error', () => {});
    await client.connect();
    try {
      await client.query(`drop database if exists ${name} with (force)`);
    } finally {
      await client.end();
    }
  };
  return { url: url.toString(), drop };
}

/**
 * Creates an empty PostgreSQL database for one test (or process) and returns its URL and a drop function.
 * @example const { url, drop } = await scratchPostgres()
 */
export async function scratchPostgres() {
  if (!databaseUrl) throw new Error('DATABASE_URL is not set');
  return createScratchDatabase(databaseUrl);
}

/**
 * The databases every storage and operation test loops over.
 * @example describe.each(testDatabases)('on $name', ({ open }) => { … })
 */
export const testDatabases: TestDatabase[] = [
  {
    name: 'pglite',
    async open() {
      const database = await openDatabase({ dataDir: 'memory://' });
      await migrateToLatest(database.db);
      return database;
    },
  },
  ...(databaseUrl
    ? [
        {
          name: 'postgres' as const,
          async open() {
            const scratch = await createScratchDatabase(databaseUrl);
            const database = await openDatabase({ databaseUrl: scratch.url });
            await migrateToLatest(database.db);
            return {
              ...database,
              url: scratch.url,
              close: async () => {
                await database.close();
                await scratch.drop();
              },
            };
          },
        },
      ]
    : []),
];

/**
 * Two instances on one fresh, migrated PostgreSQL database: two pools, as two servers would have.
 * @example const { first, second, close } = await openTwoInstances(); … await close()
 */
export async function openTwoInstances() {
  const postgres = testDatabases.find((d) => d.name === 'postgres');
  if (!postgres) throw new Error('DATABASE_URL is not set');
  const first = await postgres.open();
  const second = await openDatabase({ databaseUrl: first.url! });
  return {
    first,
    second,
    async close() {
      await second.close();
      await first.close();
    },
  };
}

/**
 * Awaits a call that must be refused and answers its PetStoreError; fails the test when it succeeds or throws
 * anything else.
 * @example expect((await refusal(store.listPets({}, {}))).code).toBe('missing_api_key')
 */
export async function refusal(promise: Promise<unknown>): Promise<PetStoreError> {
  const error = await promise.then(
    () => expect.unreachable('expected the call to be refused with a PetStoreError'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(PetStoreError);
  return error as PetStoreError;
}
