import { sql, type Kysely } from 'kysely';
import { MIGRATION_LOCK_KEY } from './legacy-migrations.js';
import { tableExists, tableIn } from './schema.js';

/**
 * The table that says which releases opened the database and how far each one's migrations go: one row per release
 * (`@petstore/server@1.4.0`), with the newest migration it knows. It is made outside the migrations, so a release
 * that predates it is not refused by an unknown migration of its own records. Every later release keeps it in this
 * shape and writes its row on each start: an earlier one reads it to name the release it must not run beside.
 */
export const RELEASE_TABLE = 'petstore_release';

/**
 * A database migrated by a newer release: it holds migrations this release does not know, so this release refuses to
 * start on it rather than serve a schema it was not written for.
 */
export class DatabaseOfNewerReleaseError extends Error {
  override readonly name = 'DatabaseOfNewerReleaseError';
  /** The newest release recorded with migrations beyond this one's, when one was recorded. */
  readonly newer: string | undefined;
  /** The migrations in the database that this release does not know. */
  readonly unknownMigrations: readonly string[];

  constructor(release: string, newer: string | undefined, unknownMigrations: readonly string[]) {
    const by = newer ? `migrated by ${newer}, a newer release than this one (${release})` : `migrated by a release newer than this one (${release})`;
    super(
      `This database was ${by}: it holds migrations this release does not know (${unknownMigrations.join(', ')}). ` +
        `Run ${newer ?? 'that release'} or a later one, or restore the backup taken before the upgrade (docs/upgrading.md).`,
    );
    this.newer = newer;
    this.unknownMigrations = unknownMigrations;
  }
}

/**
 * Refuses a database whose migration records (`migrationTable`) name migrations beyond `known`: it was migrated by a
 * newer release, named from the release table when that release recorded itself there.
 * @example await refuseNewerDatabase(db, undefined, 'petstore_migration', MIGRATION_NAMES, '@petstore/server@1.4.0')
 */
export async function refuseNewerDatabase(
  db: Kysely<any>,
  schema: string | undefined,
  migrationTable: string,
  known: readonly string[],
  release: string,
): Promise<void> {
  if (!(await tableExists(db, schema, migrationTable))) return;
  const { rows } = await sql<{ name: string }>`select name from ${tableIn(schema, migrationTable)} order by name`.execute(db);
  const unknown = rows.map((row) => row.name).filter((name) => !known.includes(name));
  if (unknown.length === 0) return;
  let newer: string | undefined;
  if (await tableExists(db, schema, RELEASE_TABLE)) {
    // The release that knows the most, the latest to start among equals.
    const { rows: releases } = await sql<{ release: string; latest_migration: string }>`
      select release, latest_migration from ${tableIn(schema, RELEASE_TABLE)}
      order by latest_migration desc, last_opened_at desc`.execute(db);
    newer = releases.find((row) => !known.includes(row.latest_migration))?.release;
  }
  throw new DatabaseOfNewerReleaseError(release, newer, unknown);
}

/**
 * Records that `release`, whose newest migration is `latestMigration`, opened the database now: its row is made on
 * its first start and dated on each one. One transaction under the migration lock.
 * @example await recordRelease(db, undefined, '@petstore/server@1.4.0', '2026-11-24-020-domains')
 */
export async function recordRelease(db: Kysely<any>, schema: string | undefined, release: string, latestMigration: string): Promise<void> {
  const table = tableIn(schema, RELEASE_TABLE);
  await db.transaction().execute(async (trx) => {
    // The migrations' lock: instances starting together never make the table twice.
    await sql`select pg_advisory_xact_lock(${sql.lit(MIGRATION_LOCK_KEY)}::bigint)`.execute(trx);
    if (!(await tableExists(trx, schema, RELEASE_TABLE))) {
      await sql`
        create table ${table} (
          release text primary key,
          latest_migration text not null,
          first_opened_at timestamptz not null default now(),
          last_opened_at timestamptz not null default now()
        )`.execute(trx);
    }
    await sql`
      insert into ${table} (release, latest_migration) values (${release}, ${latestMigration})
      on conflict (release) do update set latest_migration = excluded.latest_migration, last_opened_at = now()`.execute(trx);
  });
}
