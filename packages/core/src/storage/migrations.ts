import * as kysely from 'kysely';
import { sql, type Kysely } from 'kysely';
import { coreVersion } from '../version.js';
import { carryOverKyselyMigrations } from './legacy-migrations.js';
import type { MigrationProvider } from './migration-types.js';
import { COMPATIBILITY_FLOOR, MIGRATION_NAMES, migrations } from './migrations/index.js';
import { RELEASE_TABLE, recordRelease, releaseStanding } from './release-record.js';
import { schemaName, tableExists, type StoreSchema } from './schema.js';

/** The table that records which of the store's migrations ran: ours, never kysely's default `kysely_migration`. */
export const MIGRATION_TABLE = 'petstore_migration';
/** The lock row's table of {@link MIGRATION_TABLE}, beside it. */
export const MIGRATION_LOCK_TABLE = 'petstore_migration_lock';

/**
 * The store's migrations for a host's own kysely `Migrator`, making every table in `schema` (made if missing).
 * Recorded in whichever tables that migrator keeps; give it a schema of the store's own or tables that hold nothing
 * else, as the names are the store's (`2026-11-21-001-pets-and-api-keys`, …).
 * @example new Migrator({ db, provider: petStoreMigrations({ schema: 'petstore' }), migrationTableName: 'petstore_migration', migrationTableSchema: 'petstore' })
 */
export function petStoreMigrations(options: StoreSchema = {}): MigrationProvider {
  const schema = schemaName(options.schema);
  return { getMigrations: async () => migrations(schema) };
}

/** What the store uses of kysely's `Migrator`. */
type MigratorClass = new (props: {
  db: Kysely<any>;
  provider: MigrationProvider;
  migrationTableName: string;
  migrationLockTableName: string;
  migrationTableSchema?: string;
}) => { migrateToLatest(): Promise<{ error?: unknown; results?: readonly { migrationName: string; status: string }[] }> };

/** kysely's `Migrator`: from `kysely` up to 0.28, from `kysely/migration` since 0.29 (which no longer has it at the root). */
async function loadMigrator(): Promise<MigratorClass> {
  const atRoot = (kysely as unknown as { Migrator?: MigratorClass }).Migrator;
  if (typeof atRoot === 'function') return atRoot;
  // A variable, so that the types of kysely 0.28, which has no such path, are not asked for it.
  const migrationPath = 'kysely/migration';
  return ((await import(migrationPath)) as { Migrator: MigratorClass }).Migrator;
}

/** The schema unqualified names land in on this connection (`public` by default), if any. */
async function currentSchema(db: Kysely<any>): Promise<string | undefined> {
  const { rows } = await sql<{ schema: string | null }>`select current_schema() as schema`.execute(db);
  return rows[0]?.schema ?? undefined;
}

/** Where the store's tables are, and who is opening them. */
export interface MigrateOptions extends StoreSchema {
  /**
   * The program opening the database, as `name@version` (`@petstore/server@1.4.0`): recorded in `petstore_release`,
   * and named to an earlier release that finds the database migrated beyond it. Default `@petstore/core@` its version.
   */
  release?: string | undefined;
}

/**
 * Brings the store's tables up to date in `schema` (default: the current one, `public`), recording them in
 * `petstore_migration` there; a database migrated by an earlier release, which recorded them in kysely's
 * `kysely_migration`, has those rows copied over first (never changed or removed). A database migrated further by a
 * newer release is left as it is when that release admits this one (its recorded compatibility floor is this release
 * or an earlier one: its migrations only added), and refused with a {@link DatabaseOfNewerReleaseError} naming it
 * otherwise. Every start records its `release` and this release's floor in `petstore_release`, before it migrates
 * (so an earlier release that starts meanwhile finds the floor of the schema it will meet) and after. Safe to run from
 * several instances at once (kysely's Migrator locks). Leaves every other table, and the host's kysely migrations, alone.
 * @example await migrateToLatest(db, { schema: 'petstore', release: '@petstore/server@1.4.0' })
 */
export async function migrateToLatest(db: Kysely<any>, options: MigrateOptions = {}): Promise<void> {
  const own = db.withoutPlugins();
  const schema = schemaName(options.schema) ?? (await currentSchema(own));
  const release = options.release ?? `@petstore/core@${coreVersion}`;
  const record = () => recordRelease(own, schema, release, MIGRATION_NAMES.at(-1)!, COMPATIBILITY_FLOOR);
  await carryOverKyselyMigrations(own, schema, MIGRATION_TABLE);
  const found = await releaseStanding(own, schema, MIGRATION_TABLE, MIGRATION_NAMES, release);
  if (found.standing === 'current' && found.pending.length > 0) {
    if (await tableExists(own, schema, RELEASE_TABLE)) await record();
    const Migrator = await loadMigrator();
    const migrator = new Migrator({
      db: own,
      provider: petStoreMigrations(options),
      migrationTableName: MIGRATION_TABLE,
      migrationLockTableName: MIGRATION_LOCK_TABLE,
      ...(schema === undefined ? {} : { migrationTableSchema: schema }),
    });
    const { error, results } = await migrator.migrateToLatest();
    // A newer release may have migrated since the check above: it admits this one, or its name says more than
    // kysely's "missing" migration.
    if (error && (await releaseStanding(own, schema, MIGRATION_TABLE, MIGRATION_NAMES, release)).standing === 'current') {
      const failed = results?.find((r) => r.status === 'Error')?.migrationName;
      throw new Error(`Database migration ${failed ?? ''} failed: ${String((error as Error).message ?? error)}`, {
        cause: error,
      });
    }
  }
  await record();
}
