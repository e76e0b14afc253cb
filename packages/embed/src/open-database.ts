import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PGlite } from '@electric-sql/pglite';
import type { Database } from '@petstore/core';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { builtFile, pgliteTemplate } from './pglite-template.js';
import { isDatabaseUnavailable } from './storage/is-database-unavailable.js';
import { createPGliteDialect } from './storage/pglite-dialect.js';

const PGLITE_SETTINGS = {
  // PostgreSQL's defaults (128 MB of shared buffers, 64 MB for maintenance) would stay resident in PGlite's memory;
  // an embedded catalogue needs far less.
  postgresqlconf: ['shared_buffers=8MB', 'wal_buffers=256kB', 'maintenance_work_mem=4MB', 'work_mem=1MB', 'temp_buffers=1MB'],
};

/** Creates the cluster of a new data folder in a child process, from the build's template when there is one. */
async function initialiseDataDir(dataDir: string) {
  const child = builtFile('init-data-dir.js');
  if (child) await promisify(execFile)(process.execPath, [child, dataDir]);
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
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    return { db, kind: 'postgres', pool, isUnavailable: isDatabaseUnavailable, close: () => db.destroy() };
  }
  const dataDir = options.dataDir ?? './.petstore-data';
  let pglite: PGlite;
  if (dataDir.includes('://')) {
    const loadDataDir = await pgliteTemplate();
    pglite = await PGlite.create(dataDir, { ...PGLITE_SETTINGS, ...(loadDataDir ? { loadDataDir } : {}) });
  } else {
    await mkdir(dataDir, { recursive: true });
    if (!existsSync(join(dataDir, 'PG_VERSION'))) await initialiseDataDir(dataDir);
    pglite = await PGlite.create(dataDir, PGLITE_SETTINGS);
  }
  const db = new Kysely<Database>({ dialect: createPGliteDialect(pglite) });
  return { db, kind: 'pglite', isUnavailable: isDatabaseUnavailable, close: () => db.destroy() };
}
