import { PostgresAdapter, PostgresDialect, sql, type Kysely, type PostgresDialectConfig } from 'kysely';

// The key kysely's own PostgreSQL adapter locks, so an instance of an earlier release, which takes kysely's lock,
// still waits for a migration of this one and the other way round (both kinds of advisory lock share one key space).
const MIGRATION_LOCK_KEY = '3853314791062309107';
// As kysely's: how long a migration waits for another instance's before it fails.
const LOCK_TIMEOUT_MS = 3_600_000;

/**
 * kysely's adapter with a migration lock that outlives no transaction. kysely takes a session-level advisory lock in a
 * statement of its own, before the migrations' transaction, and releases it in another: behind PgBouncer in
 * transaction pooling the three may run on three server connections, and the lock stays held on one of them, so
 * every later migration waits an hour. Here the lock opens a transaction and takes a transaction-level lock in it;
 * the migrator's own `begin` then joins that transaction (PostgreSQL answers a warning), and its `commit` or
 * `rollback` ends both: one transaction, one server connection, the lock released with it whatever happens.
 */
class TransactionLockAdapter extends PostgresAdapter {
  override async acquireMigrationLock(db: Kysely<any>): Promise<void> {
    await sql`begin`.execute(db);
    try {
      await sql`select set_config('lock_timeout', ${sql.lit(String(LOCK_TIMEOUT_MS))}, true), pg_advisory_xact_lock(${sql.lit(MIGRATION_LOCK_KEY)}::bigint)`.execute(db);
    } catch (error) {
      await sql`rollback`.execute(db).catch(() => {});
      throw error;
    }
  }

  override async releaseMigrationLock(): Promise<void> {
    // Released by the end of the migrations' transaction.
  }
}

class TransactionLockDialect extends PostgresDialect {
  override createAdapter() {
    return new TransactionLockAdapter();
  }
}

/**
 * kysely's PostgreSQL dialect on a `pg` pool, safe behind PgBouncer in transaction pooling: its migration lock lives in
 * the migrations' transaction (see TransactionLockAdapter).
 * @example const db = new Kysely<Database>({ dialect: createPostgresDialect({ pool }) })
 */
export function createPostgresDialect(config: PostgresDialectConfig): PostgresDialect {
  return new TransactionLockDialect(config);
}
