import { testDatabases, type OpenDatabase } from '@petstore/testing';
import { sql, type Kysely } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { coreVersion } from '../version.js';
import { Migrator } from 'kysely';
import { MIGRATION_LOCK_TABLE, migrateToLatest, MIGRATION_TABLE } from './migrations.js';
import { COMPATIBILITY_FLOOR, MIGRATION_NAMES, migrations } from './migrations/index.js';
import { DatabaseOfNewerReleaseError, recordRelease, RELEASE_TABLE } from './release-record.js';

const LATEST = MIGRATION_NAMES.at(-1)!;
// A migration this code does not know, named as a later one would be (names sort in the order they run).
const FUTURE = '2099-01-01-900-future';

const releases = async (db: Kysely<any>, schema?: string) => {
  const table = schema ? sql.id(schema, RELEASE_TABLE) : sql.table(RELEASE_TABLE);
  const { rows } = await sql<{ release: string; latest_migration: string; first_opened_at: Date; last_opened_at: Date }>`
    select release, latest_migration, first_opened_at, last_opened_at from ${table} order by first_opened_at, release`.execute(db);
  return rows;
};

const applied = async (db: Kysely<any>) =>
  (await sql<{ name: string }>`select name from ${sql.table(MIGRATION_TABLE)} order by name`.execute(db)).rows.map((row) => row.name);

/**
 * What a newer release does when it starts: it runs the store's migrations and one more of its own (a real one, which
 * adds a column), as `migrateToLatest` does, and records itself with the floor it declares.
 */
async function migrateAsNewerReleaseWithFloor(db: Kysely<any>, release: string, floorMigration: string) {
  const future = { async up(trx: Kysely<any>) { await sql`alter table pets add column nickname text`.execute(trx); } };
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => ({ ...migrations(undefined), [FUTURE]: future }) },
    migrationTableName: MIGRATION_TABLE,
    migrationLockTableName: MIGRATION_LOCK_TABLE,
  });
  expect((await migrator.migrateToLatest()).error).toBeUndefined();
  await recordRelease(db, undefined, release, FUTURE, { release: release.replace(/-.*$/, ''), migration: floorMigration });
}

/** The records a newer release leaves: its migration applied, and (from this release on) its row. */
async function migrateAsNewerRelease(db: Kysely<any>, release: string | undefined) {
  await sql`insert into ${sql.table(MIGRATION_TABLE)} (name, timestamp) values (${FUTURE}, ${new Date().toISOString()})`.execute(db);
  if (release) {
    await sql`insert into ${sql.table(RELEASE_TABLE)} (release, latest_migration) values (${release}, ${FUTURE})`.execute(db);
  }
}

describe.each(testDatabases)('the releases a database records, on $name', ({ open }) => {
  let database: OpenDatabase;
  afterEach(() => database?.close());

  it('records each release that opens it, with its newest migration, once, dated at every start', async () => {
    database = await open(); // migrated by the core's own default name
    await migrateToLatest(database.db, { release: '@petstore/server@1.4.0' });
    const first = (await releases(database.db)).find((row) => row.release === '@petstore/server@1.4.0')!;
    await new Promise((resolve) => setTimeout(resolve, 20));
    await migrateToLatest(database.db, { release: '@petstore/server@1.4.0' });
    const rows = await releases(database.db);
    expect(rows.map(({ release, latest_migration }) => ({ release, latest_migration }))).toEqual([
      { release: `@petstore/core@${coreVersion}`, latest_migration: LATEST },
      { release: '@petstore/server@1.4.0', latest_migration: LATEST },
    ]);
    const again = rows.find((row) => row.release === '@petstore/server@1.4.0')!;
    expect(again.first_opened_at).toEqual(first.first_opened_at);
    expect(again.last_opened_at.getTime()).toBeGreaterThan(first.last_opened_at.getTime());
  });

  it('refuses a database migrated by a newer release, naming that release, and changes nothing', async () => {
    database = await open();
    await migrateAsNewerRelease(database.db, '@petstore/server@2.0.0');
    const before = await releases(database.db);
    const refused = await migrateToLatest(database.db, { release: '@petstore/server@1.4.0' }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(DatabaseOfNewerReleaseError);
    expect((refused as DatabaseOfNewerReleaseError).newer).toBe('@petstore/server@2.0.0');
    expect((refused as Error).message).toBe(
      'This database was migrated by @petstore/server@2.0.0, a newer release than this one (@petstore/server@1.4.0): it ' +
        `holds migrations this release does not know (${FUTURE}). Run @petstore/server@2.0.0 or a later one, or restore ` +
        'the backup taken before the upgrade (docs/upgrading.md).',
    );
    expect(await releases(database.db)).toEqual(before);
  });

  it('names the migration it does not know when the newer release recorded no name', async () => {
    database = await open();
    await migrateAsNewerRelease(database.db, undefined);
    await expect(migrateToLatest(database.db)).rejects.toThrow(
      `This database was migrated by a release newer than this one (@petstore/core@${coreVersion}): it holds migrations this release does not know (${FUTURE}).`,
    );
  });

  it('records with each release the oldest release its schema admits, and the migration that tells it', async () => {
    database = await open();
    await migrateToLatest(database.db, { release: '@petstore/server@1.4.0' });
    const { rows } = await sql<{ floor_release: string; floor_migration: string }>`
      select floor_release, floor_migration from ${sql.table(RELEASE_TABLE)} where release = '@petstore/server@1.4.0'`.execute(database.db);
    expect(rows).toEqual([{ floor_release: COMPATIBILITY_FLOOR.release, floor_migration: COMPATIBILITY_FLOOR.migration }]);
    expect(MIGRATION_NAMES).toContain(COMPATIBILITY_FLOOR.migration);
  });

  it('starts on a database a newer release migrated further when that release admits it, migrating nothing, and serves its schema', async () => {
    database = await open();
    await migrateToLatest(database.db, { release: '@petstore/server@1.4.0' });
    // The newer release only added a column: its floor is a migration this release knows.
    await migrateAsNewerReleaseWithFloor(database.db, '@petstore/server@1.5.0-dev+abc1234', MIGRATION_NAMES.at(-1)!);
    const before = await applied(database.db);
    await migrateToLatest(database.db, { release: '@petstore/server@1.4.0' });
    expect(await applied(database.db)).toEqual(before);
    expect((await releases(database.db)).map((row) => row.release)).toEqual([
      `@petstore/core@${coreVersion}`,
      '@petstore/server@1.4.0',
      '@petstore/server@1.5.0-dev+abc1234',
    ]);
    // The earlier release's statements run on the newer schema: the added column takes its default.
    await sql`insert into pets (name, category_id, status) values ('Rex', 1, 'available')`.execute(database.db);
    const { rows } = await sql<{ name: string; nickname: string | null }>`select name, nickname from pets`.execute(database.db);
    expect(rows).toEqual([{ name: 'Rex', nickname: null }]);
  });

  it('refuses a database whose newer release admits only releases from a later one, naming both and the way forward, and changes nothing', async () => {
    database = await open();
    await migrateToLatest(database.db, { release: '@petstore/server@1.4.0' });
    // A contract step: the floor moves to the newer release's own migration.
    await migrateAsNewerReleaseWithFloor(database.db, '@petstore/server@2.0.0', FUTURE);
    const before = await releases(database.db);
    const refused = await migrateToLatest(database.db, { release: '@petstore/server@1.4.0' }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(DatabaseOfNewerReleaseError);
    expect(refused).toMatchObject({ newer: '@petstore/server@2.0.0', oldestAdmitted: '@petstore/server@2.0.0', unknownMigrations: [FUTURE] });
    expect((refused as Error).message).toBe(
      'This database was migrated by @petstore/server@2.0.0, which admits @petstore/server@2.0.0 and later releases on its ' +
        `schema; this one (@petstore/server@1.4.0) is older: it does not know ${FUTURE}. Run @petstore/server@2.0.0 or a ` +
        'later one, or restore the backup taken before the upgrade to ' +
        '@petstore/server@2.0.0 (docs/upgrading.md).',
    );
    expect(await releases(database.db)).toEqual(before);
  });

  it('is refused by the strictest of the newer releases: one that admits it does not outvote one that does not', async () => {
    database = await open();
    await migrateToLatest(database.db, { release: '@petstore/server@1.4.0' });
    await migrateAsNewerReleaseWithFloor(database.db, '@petstore/server@2.0.0', FUTURE);
    // Rolled back to a release between the two, which knows the contract step, and admits 1.4.0 by its own floor.
    await recordRelease(database.db, undefined, '@petstore/server@1.9.0', FUTURE, { release: '@petstore/server@1.0.0', migration: MIGRATION_NAMES[0]! });
    await expect(migrateToLatest(database.db, { release: '@petstore/server@1.4.0' })).rejects.toThrow(
      'This database was migrated by @petstore/server@2.0.0, which admits @petstore/server@2.0.0',
    );
  });

  it('adds the floor to a release table made before floors were recorded, keeping its rows', async () => {
    database = await open();
    await sql`drop table ${sql.table(RELEASE_TABLE)}`.execute(database.db);
    await sql`
      create table ${sql.table(RELEASE_TABLE)} (release text primary key, latest_migration text not null,
        first_opened_at timestamptz not null default now(), last_opened_at timestamptz not null default now())`.execute(database.db);
    await sql`insert into ${sql.table(RELEASE_TABLE)} (release, latest_migration) values ('@petstore/server@0.1.9', ${LATEST})`.execute(database.db);
    await migrateToLatest(database.db, { release: '@petstore/server@1.4.0' });
    const { rows } = await sql<{ release: string; floor_release: string | null }>`
      select release, floor_release from ${sql.table(RELEASE_TABLE)} order by release`.execute(database.db);
    expect(rows).toEqual([
      { release: '@petstore/server@0.1.9', floor_release: null },
      { release: '@petstore/server@1.4.0', floor_release: COMPATIBILITY_FLOOR.release },
    ]);
  });

  it('starts beside a newer release that added no migration, as in a rolling upgrade and back', async () => {
    database = await open();
    await migrateToLatest(database.db, { release: '@petstore/server@2.0.0' });
    await migrateToLatest(database.db, { release: '@petstore/server@1.4.0' });
    expect((await releases(database.db)).map((row) => row.release)).toContain('@petstore/server@1.4.0');
  });
});

describe.runIf(testDatabases.some((d) => d.name === 'postgres'))('the releases in a schema of the store', () => {
  it('are recorded in that schema, and instances starting together make the table once', async () => {
    const database = await testDatabases.find((d) => d.name === 'postgres')!.open();
    try {
      await Promise.all(
        ['a', 'b', 'c', 'd'].map((name) => migrateToLatest(database.db, { schema: 'petstore', release: `@petstore/server@1.0.0-${name}` })),
      );
      expect((await releases(database.db, 'petstore')).map((row) => row.release).sort()).toEqual(
        ['a', 'b', 'c', 'd'].map((name) => `@petstore/server@1.0.0-${name}`),
      );
    } finally {
      await database.close();
    }
  });
});
