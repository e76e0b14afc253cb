import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { isDatabaseUnavailable, type Database } from '@petstore/core';
import { Kysely, sql } from 'kysely';
import pg from 'pg';
import { extract } from 'tar';
import { builtFile, pgliteTemplate, TEMPLATE_FILE } from './pglite-template.js';
import { createPGliteDialect } from './storage/pglite-dialect.js';
import { createPostgresDialect } from './storage/postgres-dialect.js';

const PGLITE_SETTINGS = {
  // PostgreSQL's defaults (128 MB of shared buffers, 64 MB for maintenance) would stay resident in PGlite's memory;
  // an embedded catalogue needs far less.
  postgresqlconf: ['shared_buffers=8MB', 'wal_buffers=256kB', 'maintenance_work_mem=4MB', 'work_mem=1MB', 'temp_buffers=1MB'],
};

/**
 * Fills a new data folder from the build's template, a cluster with the schema already made: its files are
 * unpacked straight into the folder, `PG_VERSION` last, so a folder holding `PG_VERSION` is always complete (a start
 * cut short just unpacks again). About 0.2 s, once per folder. Without a template PGlite runs initdb itself when it
 * opens the folder.
 */
function initialiseDataDir(dataDir: string) {
  const file = builtFile(TEMPLATE_FILE);
  if (!file) return;
  const isMarker = (path: string) => path.replace(/^\/+/, '') === 'PG_VERSION';
  // Synchronous: node-tar's streaming extraction takes several times as long (0.55 s against 0.16 s here).
  extract({ file, cwd: dataDir, sync: true, noMtime: true, filter: (path) => !isMarker(path) });
  extract({ file, cwd: dataDir, sync: true, noMtime: true, filter: isMarker });
}

/** Where the data lives: PostgreSQL when `databaseUrl` is given, else the embedded PGlite in `dataDir`. */
export interface DatabaseOptions {
  /** `postgres://…`; unset for the embedded database. */
  databaseUrl?: string | undefined;
  /** Folder of the embedded database; `memory://` keeps nothing. Default `./.petstore-data`. */
  dataDir?: string | undefined;
  /** Largest number of PostgreSQL connections. Default 10. */
  poolSize?: number | undefined;
}

/** An open database and what it runs on. */
export interface OpenDatabase {
  db: Kysely<Database>;
  kind: 'postgres' | 'pglite';
  /** The `pg` pool, when on PostgreSQL (for stores that talk to it directly). */
  pool?: pg.Pool;
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
    const db = new Kysely<Database>({ dialect: createPostgresDialect({ pool }) });
    return { db, kind: 'postgres', pool, isUnavailable: isDatabaseUnavailable, close: () => db.destroy() };
  }
  const dataDir = options.dataDir ?? './.petstore-data';
  let pglite: PGlite;
  if (dataDir.includes('://')) {
    const loadDataDir = await pgliteTemplate();
    pglite = await PGlite.create(dataDir, { ...PGLITE_SETTINGS, ...(loadDataDir ? { loadDataDir } : {}) });
  } else {
    await mkdir(dataDir, { recursive: true });
    if (!existsSync(join(dataDir, 'PG_VERSION'))) initialiseDataDir(dataDir);
    pglite = await PGlite.create(dataDir, PGLITE_SETTINGS);
  }
  const db = new Kysely<Database>({ dialect: createPGliteDialect(pglite) });
  // Holding the dialect's one connection keeps every statement and transaction of the store out of the copy.
  const backup = () =>
    db.connection().execute(async (connection) => {
      await sql`checkpoint`.execute(connection);
      return pglite.dumpDataDir('gzip');
    });
  return { db, kind: 'pglite', isUnavailable: isDatabaseUnavailable, backup, close: () => db.destroy() };
}

/**
 * Restores a backup made by {@link OpenDatabase.backup} into a data folder that holds no database yet; the restored
 * database keeps its ids, so new ones continue after the last.
 * @example await restoreDataDir('./.petstore-data', new Blob([await readFile('backup.tar.gz')]))
 */
export async function restoreDataDir(dataDir: string, backup: Blob): Promise<void> {
  if (existsSync(join(dataDir, 'PG_VERSION'))) {
    throw new Error(`${dataDir} already holds a database; restore into an empty folder.`);
  }
  await mkdir(dataDir, { recursive: true });
  const pglite = await PGlite.create(dataDir, { ...PGLITE_SETTINGS, loadDataDir: backup });
  await pglite.query('select 1 from pets limit 1');
  await pglite.close();
}
