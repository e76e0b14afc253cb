import { sql, type Kysely } from 'kysely';
import { MIGRATION_LOCK_KEY } from './legacy-migrations.js';
import { columnExists, tableExists, tableIn } from './schema.js';

/**
 * The table that says which releases opened the database, how far each one's migrations go, and the oldest release
 * each admits on the schema it migrated to: one row per release (`@petstore/server@1.4.0`), with the newest migration
 * it knows and its compatibility floor (`floor_release`, and `floor_migration`, the migration a release must know to
 * be at or above it). It is made outside the migrations, so a release that predates it is not refused by an unknown
 * migration of its own records. Later releases only add columns to it and write their row on each start: an earlier
 * one reads it to know whether it may run beside them, and to name the release it must not run beside.
 */
export const RELEASE_TABLE = 'petstore_release';

/** The oldest release that may run on a schema, and the migration that tells it: a release that knows it is at or above it. */
export interface CompatibilityFloor {
  readonly release: string;
  readonly migration: string;
}

/**
 * A database migrated by a newer release that does not admit this one: it holds migrations this release does not
 * know, and the newer release recorded a compatibility floor above this one (or none), so this release refuses to
 * start on it rather than serve a schema it was not written for.
 */
export class DatabaseOfNewerReleaseError extends Error {
  override readonly name = 'DatabaseOfNewerReleaseError';
  /** The newer release that does not admit this one, when one was recorded. */
  readonly newer: string | undefined;
  /** The oldest release that newer one admits, when it recorded one. */
  readonly oldestAdmitted: string | undefined;
  /** The migrations in the database that this release does not know. */
  readonly unknownMigrations: readonly string[];

  constructor(release: string, newer: string | undefined, unknownMigrations: readonly string[], floor?: CompatibilityFloor) {
    const unknown = `it holds migrations this release does not know (${unknownMigrations.join(', ')})`;
    const message = floor
      ? `This database was migrated by ${newer}, which admits ${floor.release} and later releases on its schema; this ` +
        `one (${release}) is older: it does not know ${floor.migration}. Run ${floor.release} or a later one, or ` +
        `restore the backup taken before the upgrade to ${newer} (docs/upgrading.md).`
      : `This database was ${newer ? `migrated by ${newer}, a newer release than this one (${release})` : `migrated by a release newer than this one (${release})`}: ` +
        `${unknown}. Run ${newer ?? 'that release'} or a later one, or restore the backup taken before the upgrade (docs/upgrading.md).`;
    super(message);
    this.newer = newer;
    this.oldestAdmitted = floor?.release;
    this.unknownMigrations = unknownMigrations;
  }
}

/**
 * Where a release stands on a database: `current` when it knows every migration there (`pending` lists those of its
 * own still to run), `behind` when a newer release migrated it further and admits this one on its schema (it runs on
 * that schema as it is, and migrates nothing).
 */
export type ReleaseStanding = { standing: 'current'; pending: readonly string[] } | { standing: 'behind'; newer: string };

interface ReleaseRow {
  release: string;
  latest_migration: string;
  floor_release?: string | null;
  floor_migration?: string | null;
}

/**
 * Reads where `release`, which knows the migrations `known`, stands on the database whose migration records are
 * `migrationTable`. Refuses, with a {@link DatabaseOfNewerReleaseError} naming the newer release and its floor, a
 * database that holds migrations beyond `known` unless every release recorded with migrations beyond them admits this
 * one (its floor's migration is one this release knows).
 * @example const { standing } = await releaseStanding(db, undefined, 'petstore_migration', MIGRATION_NAMES, '@petstore/server@1.4.0')
 */
export async function releaseStanding(
  db: Kysely<any>,
  schema: string | undefined,
  migrationTable: string,
  known: readonly string[],
  release: string,
): Promise<ReleaseStanding> {
  if (!(await tableExists(db, schema, migrationTable))) return { standing: 'current', pending: known };
  const { rows } = await sql<{ name: string }>`select name from ${tableIn(schema, migrationTable)} order by name`.execute(db);
  const applied = new Set(rows.map((row) => row.name));
  const unknown = [...applied].filter((name) => !known.includes(name));
  const pending = known.filter((name) => !applied.has(name));
  if (unknown.length === 0) return { standing: 'current', pending };
  // The releases that know more than this one, the one that knows the most and started latest first.
  const newer: ReleaseRow[] = [];
  if (await tableExists(db, schema, RELEASE_TABLE)) {
    const { rows: releases } = await sql<ReleaseRow>`
      select * from ${tableIn(schema, RELEASE_TABLE)} order by latest_migration desc, last_opened_at desc`.execute(db);
    newer.push(...releases.filter((row) => !known.includes(row.latest_migration)));
  }
  const refusing = newer.find((row) => !row.floor_migration || !known.includes(row.floor_migration));
  if (newer.length === 0 || refusing) {
    const floor = refusing?.floor_release && refusing.floor_migration ? { release: refusing.floor_release, migration: refusing.floor_migration } : undefined;
    throw new DatabaseOfNewerReleaseError(release, (refusing ?? newer[0])?.release, unknown, floor);
  }
  // Admitted on a newer schema, which holds every migration of the releases before it.
  if (pending.length > 0) {
    throw new Error(
      `This database was migrated by ${newer[0]!.release}, which admits this release (${release}), but it lacks migrations of this ` +
        `release (${pending.join(', ')}): it was not migrated by the releases in between. Run ${newer[0]!.release}.`,
    );
  }
  return { standing: 'behind', newer: newer[0]!.release };
}

/**
 * Records that `release`, whose newest migration is `latestMigration` and whose schema admits releases from `floor`
 * on, opened the database now: its row is made on its first start and dated on each one. One transaction under the
 * migration lock; the table, or the columns an earlier release made it without, are made first when missing.
 * @example await recordRelease(db, undefined, '@petstore/server@1.4.0', '2026-11-24-020-domains', COMPATIBILITY_FLOOR)
 */
export async function recordRelease(
  db: Kysely<any>,
  schema: string | undefined,
  release: string,
  latestMigration: string,
  floor: CompatibilityFloor,
): Promise<void> {
  const table = tableIn(schema, RELEASE_TABLE);
  await db.transaction().execute(async (trx) => {
    // The migrations' lock: instances starting together never make the table, or its columns, twice.
    await sql`select pg_advisory_xact_lock(${sql.lit(MIGRATION_LOCK_KEY)}::bigint)`.execute(trx);
    if (!(await tableExists(trx, schema, RELEASE_TABLE))) {
      await sql`
        create table ${table} (
          release text primary key,
          latest_migration text not null,
          first_opened_at timestamptz not null default now(),
          last_opened_at timestamptz not null default now(),
          floor_release text,
          floor_migration text
        )`.execute(trx);
    } else if (!(await columnExists(trx, schema, RELEASE_TABLE, 'floor_migration'))) {
      // Made by a release before floors were recorded: nullable columns, which its inserts leave empty.
      await sql`alter table ${table} add column floor_release text, add column floor_migration text`.execute(trx);
    }
    await sql`
      insert into ${table} (release, latest_migration, floor_release, floor_migration)
      values (${release}, ${latestMigration}, ${floor.release}, ${floor.migration})
      on conflict (release) do update set latest_migration = excluded.latest_migration, floor_release = excluded.floor_release,
        floor_migration = excluded.floor_migration, last_opened_at = now()`.execute(trx);
  });
}
