import { isDatabaseUnavailable, loadOptional, type Database, type PostgresPoolLike } from '@petstore/core';
import { Kysely } from 'kysely';
import pg from 'pg';
import type { PostgresPool } from './postgres-pool.js';
import { createPostgresDialect } from './storage/postgres-dialect.js';
import type { DatabaseWait } from './database-wait.js';
import { timedPool, timedStatements } from './timed-pool.js';

/** The embedded database's package, loaded only when a store opens one. */
const loadPGlite = () => loadOptional('@petstore/pglite', () => import('@petstore/pglite'), 'The embedded database (dataDir)');

/**
 * Where the data lives: PostgreSQL when `databaseUrl` is given, else the embedded PGlite in `dataDir`, which needs the
 * package `@petstore/pglite` (loaded only then). A data folder is held by one process at a time, from open to close.
 */
export interface DatabaseOptions {
  /** `postgres://…`; unset for the embedded database. */
  databaseUrl?: string | undefined;
  /** Folder of the embedded database; `memory://` keeps nothing. Default `./.petstore-data`. */
  dataDir?: string | undefined;
  /** Largest number of PostgreSQL connections. Default 10. */
  poolSize?: number | undefined;
  /**
   * On PostgreSQL, told of each wait for the database: a connection of the pool (`acquire`), and each statement's
   * round trip (`statement`, which behind PgBouncer includes its wait for a server connection).
   */
  onWait?: DatabaseWait | undefined;
  /**
   * On the embedded database, how often its tables are looked at for the upkeep PostgreSQL's autovacuum does
   * (VACUUM and ANALYZE of the tables that grew): ms, default 10000.
   */
  upkeepEveryMs?: number | undefined;
}

/** An open database and what it runs on. */
export interface OpenDatabase {
  db: Kysely<Database>;
  kind: 'postgres' | 'pglite';
  /** The `pg` pool, when on PostgreSQL (for stores that talk to it directly). */
  pool?: PostgresPool;
  /** The quota's statements, on PostgreSQL: on `pool`, timed when `onWait` was given. */
  statements?: PostgresPoolLike;
  /** Whether an error of this database's driver means it cannot be reached (503), as opposed to a fault. */
  isUnavailable(error: unknown): boolean;
  /**
   * A consistent copy of the embedded database as a gzipped tar, taken while it serves: no statement or transaction
   * of this store runs during the copy. Absent on PostgreSQL (use `pg_dump`).
   */
  backup?(): Promise<Blob>;
  close(): Promise<void>;
}

/**
 * Opens the database of the service.
 * @example const { db, close } = await openDatabase({ dataDir: 'memory://' })
 */
export async function openDatabase(options: DatabaseOptions = {}): Promise<OpenDatabase> {
  if (options.databaseUrl) {
    const pool = new pg.Pool({
      connectionString: options.databaseUrl,
      max: options.poolSize ?? 10,
      connectionTimeoutMillis: 5_000,
    });
    pool.on('error', () => {
      // An idle client lost its connection; the pool replaces it and the next query reports any outage.
    });
    pool.on('connect', (client) => {
      // A checked-out client between queries has no listener of the pool's: without one of its own, a server
      // restart (57P01) would be an unhandled 'error' event and end the process. The client is marked unusable,
      // its next query fails (503) and the pool discards it on release.
      client.on('error', () => {});
    });
    const { onWait } = options;
    const db = new Kysely<Database>({ dialect: createPostgresDialect({ pool: onWait ? timedPool(pool, onWait) : pool }) });
    return {
      db,
      kind: 'postgres',
      pool,
      statements: onWait ? timedStatements(pool, onWait) : pool,
      isUnavailable: isDatabaseUnavailable,
      close: () => db.destroy(),
    };
  }
  // `@petstore/pglite` takes the data folder's lock (one process per folder) and gives it up on close.
  const { openEmbeddedDatabase } = await loadPGlite();
  const embedded = await openEmbeddedDatabase(options.dataDir ?? './.petstore-data', { upkeepEveryMs: options.upkeepEveryMs });
  return { db: embedded.db, kind: 'pglite', isUnavailable: isDatabaseUnavailable, backup: embedded.backup, close: embedded.close };
}

/**
 * Restores a backup made by {@link OpenDatabase.backup} into a data folder that holds no database yet, under the
 * folder's lock; the restored database keeps its ids, so new ones continue after the last. Needs `@petstore/pglite`.
 * @example await restoreDataDir('./.petstore-data', new Blob([await readFile('backup.tar.gz')]))
 */
export async function restoreDataDir(dataDir: string, backup: Blob): Promise<void> {
  const { restoreDataDir: restore } = await loadPGlite();
  await restore(dataDir, backup);
}
