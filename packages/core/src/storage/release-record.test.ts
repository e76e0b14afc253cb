import { testDatabases, type OpenDatabase } from '@petstore/testing';
import { sql, type Kysely } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { coreVersion } from '../version.js';
import { migrateToLatest, MIGRATION_TABLE } from './migrations.js';
import { MIGRATION_NAMES } from './migrations/index.js';
import { DatabaseOfNewerReleaseError, RELEASE_TABLE } from './release-record.js';

const LATEST = MIGRATION_NAMES.at(-1)!;
// A migration this code does not know, named as a later one would be (names sort in the order they run).
const FUTURE = '2099-01-01-900-future';

const releases = async (db: Kysely<any>, schema?: string) => {
  const table = schema ? sql.id(schema, RELEASE_TABLE) : sql.table(RELEASE_TABLE);
  const { rows } = await sql<{ release: string; latest_migration: string; first_opened_at: Date; last_opened_at: Date }>`
    select release, latest_migration, first_opened_at, last_opened_at from ${table} order by first_opened_at, release`.execute(db);
  return rows;
};

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
