import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApiKeyStore, MIGRATION_TABLE, petStoreMigrations } from '@petstore/core';
import { databaseUrl, scratchPostgres } from '@petstore/testing';
import { Migrator, sql, type Kysely } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase, openPetStore, type OpenPetStoreOptions } from './index.js';

const OURS = ['pets', 'api_keys', 'rate_limits', 'idempotency_keys', 'deprecated_calls', 'domains', 'usage_days', 'orders', 'webhook_deliveries', 'webhook_events', 'webhook_endpoints'];

/**
 * The database as a release before `petstore_migration` left it: the store's tables, recorded in kysely's default
 * `kysely_migration`, an animal and a key in them. A new data folder starts from this release's template, so its
 * tables go first.
 */
async function migratedTheOldWay(db: Kysely<any>) {
  await sql.raw(`drop table if exists ${[...OURS, MIGRATION_TABLE, `${MIGRATION_TABLE}_lock`].join(', ')} cascade`).execute(db);
  const { error } = await new Migrator({ db, provider: petStoreMigrations() }).migrateToLatest();
  expect(error).toBeUndefined();
  await sql`insert into pets (name, category_id, status) values ('Before the upgrade', 2, 'sold')`.execute(db);
  return (await createApiKeyStore(db).create({ plan: 'pro', label: 'old key' })).key;
}

const rows = async (db: Kysely<any>, table: string) =>
  (await sql<{ name: string; timestamp: string }>`select name, timestamp from ${sql.table(table)} order by name`.execute(db)).rows;

const targets: { name: string; database: () => Promise<{ options: OpenPetStoreOptions; drop: () => Promise<void> }> }[] = [
  {
    name: 'an embedded data folder',
    async database() {
      const folder = await mkdtemp(join(tmpdir(), 'petstore-upgrade-'));
      return { options: { dataDir: folder }, drop: () => rm(folder, { recursive: true, force: true }) };
    },
  },
  ...(databaseUrl
    ? [
        {
          name: 'PostgreSQL',
          async database() {
            const scratch = await scratchPostgres();
            return { options: { databaseUrl: scratch.url }, drop: scratch.drop };
          },
        },
      ]
    : []),
];

describe.each(targets)('upgrading $name migrated by an earlier release (kysely_migration)', ({ database }) => {
  const drops: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const drop of drops) await drop();
  });

  it('opens without running a migration again, keeps the data, and leaves kysely_migration as it was', async () => {
    const { options, drop } = await database();
    drops.push(drop);
    const old = await openDatabase(options);
    let key: string;
    let before: Awaited<ReturnType<typeof rows>>;
    try {
      key = await migratedTheOldWay(old.db);
      // A host's row beside ours: it must not be carried over, nor changed.
      await sql`insert into kysely_migration (name, timestamp) values ('2024-01-01-users', '2024-01-01T00:00:00.000Z')`.execute(old.db);
      before = await rows(old.db, 'kysely_migration');
    } finally {
      await old.close();
    }
    // Two instances of the new release start at once.
    const opened = await Promise.all([openPetStore(options), ...(options.databaseUrl ? [openPetStore(options)] : [])]);
    try {
      const [service] = opened;
      const { data } = await service!.store.listPets({}, { apiKey: key });
      expect(data.map((pet) => pet.name)).toEqual(['Before the upgrade']);
      await service!.store.createPet({ name: 'After the upgrade', categoryId: 1 }, { apiKey: key });
      const { db } = service!.database;
      expect(await rows(db, 'kysely_migration')).toEqual(before);
      expect(await rows(db, MIGRATION_TABLE)).toEqual(before.filter((row) => row.name !== '2024-01-01-users'));
    } finally {
      for (const service of opened) await service.close();
    }
    // And once more, as every later start does.
    const again = await openPetStore(options);
    try {
      expect((await again.store.listPets({}, { apiKey: key })).data).toHaveLength(2);
    } finally {
      await again.close();
    }
  });
});

describe('the schema option on the embedded database', () => {
  it('makes the schema and keeps the store in it', async () => {
    const service = await openPetStore({ dataDir: 'memory://', schema: 'petstore', apiKeys: [{ key: 'schema-key-0123456789abcd', plan: 'free' }] });
    try {
      await service.store.createPet({ name: 'In a schema', categoryId: 1 }, { apiKey: 'schema-key-0123456789abcd' });
      const { rows: tables } = await sql<{ name: string }>`select tablename as name from pg_tables where schemaname = 'petstore' order by 1`.execute(service.database.db);
      expect(tables.map((t) => t.name)).toEqual(['api_keys', 'deprecated_calls', 'domains', 'idempotency_keys', 'orders', 'pets', 'petstore_migration', 'petstore_migration_lock', 'petstore_release', 'rate_limits', 'usage_days', 'webhook_deliveries', 'webhook_endpoints', 'webhook_events']);
      expect((await sql`select name from petstore.pets`.execute(service.database.db)).rows).toEqual([{ name: 'In a schema' }]);
      // The template's tables in public stay empty.
      expect((await sql`select count(*)::int as n from public.pets`.execute(service.database.db)).rows).toEqual([{ n: 0 }]);
    } finally {
      await service.close();
    }
  });
});
