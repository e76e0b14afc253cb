import { openTestRedis, redisUrl, testDatabases, type TestDatabase } from '@petstore/testing';
import { createPetStore, createQuota, type Clock, type PetStore } from '../index.js';

/** A database with the quota store a user of it gets: memory on PGlite, the table on PostgreSQL, or Redis. */
export interface QuotaSetup {
  name: string;
  database: TestDatabase;
  redis: boolean;
}

/** Each test database with its default quota store, and the last one with Redis when `REDIS_URL` is set. */
export const quotaSetups: QuotaSetup[] = [
  ...testDatabases.map((database) => ({
    name: `${database.name} with ${database.name === 'pglite' ? 'memory' : 'postgres'} counters`,
    database,
    redis: false,
  })),
  ...(redisUrl ? [{ name: `${testDatabases.at(-1)!.name} with redis counters`, database: testDatabases.at(-1)!, redis: true }] : []),
];

/**
 * Opens a pet store on `setup`'s database, counting with its quota store on `clock`; `close` closes all of it.
 * @example const { store, close } = await openQuotaSetup(setup, clock)
 */
export async function openQuotaSetup(setup: QuotaSetup, clock: Clock): Promise<{ store: PetStore; close(): Promise<void> }> {
  const opened = await setup.database.open();
  const counters = setup.redis ? await openTestRedis() : undefined;
  const quota = counters
    ? createQuota({ store: 'redis', client: counters.client, keyPrefix: counters.keyPrefix, clock })
    : opened.pool
      ? createQuota({ store: 'postgres', pool: opened.pool, clock })
      : createQuota({ store: 'memory', clock });
  const store = createPetStore({ db: opened.db, clock, quota });
  return {
    store,
    close: async () => {
      await quota.close();
      await counters?.close();
      await opened.close();
    },
  };
}
