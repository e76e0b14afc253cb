import { sql, type Kysely } from 'kysely';
import { MIGRATION_NAMES } from './migrations/index.js';
import { tableExists, tableIn } from './schema.js';

// kysely's migration lock key, which earlier releases took while migrating into `kysely_migration` (and the
// PostgreSQL dialect of @petstore/drivers still takes): holding it, no instance of an earlier release migrates while
// the rows are copied.
export const MIGRATION_LOCK_KEY = '3853314791062309107';
// The table where releases before `petstore_migration` recorded the store's migrations (kysely's default).
const KYSELY_MIGRATION_TABLE = 'kysely_migration';

/**
 * Upgrades a database migrated by an earlier release: when `table` (ours) does not exist in `schema` yet and kysely's
 * `kysely_migration` there lists migrations of the store, it is made with kysely's columns and those rows are copied
 * into it, so the migrator does not run them again. `kysely_migration` is left as it was: its other rows are the
 * host's, and an instance of the earlier release may still read ours. One transaction, under the migration lock.
 */
export async function carryOverKyselyMigrations(db: Kysely<any>, schema: string | undefined, table: string): Promise<void> {
  const exists = (db: Kysely<any>, name: string) => tableExists(db, schema, name);
  // Checked without the lock first: once ours exists (every start but the first), nothing is locked or copied.
  if (await exists(db, table)) return;
  await db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(${sql.lit(MIGRATION_LOCK_KEY)}::bigint)`.execute(trx);
    if ((await exists(trx, table)) || !(await exists(trx, KYSELY_MIGRATION_TABLE))) return;
    const legacy = tableIn(schema, KYSELY_MIGRATION_TABLE);
    const names = sql.join(MIGRATION_NAMES.map((name) => sql.lit(name)));
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from ${legacy} where name in (${names})`.execute(trx);
    if (!rows[0]?.n) return;
    // The columns kysely's Migrator makes its table with.
    await sql`
      create table ${tableIn(schema, table)} (
        name varchar(255) not null primary key,
        timestamp varchar(255) not null
      )`.execute(trx);
    await sql`insert into ${tableIn(schema, table)} (name, timestamp) select name, timestamp from ${legacy} where name in (${names})`.execute(trx);
  });
}
