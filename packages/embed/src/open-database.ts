import { mkdir } from 'node:fs/promises';
import { PGlite } from '@electric-sql/pglite';
import { createPGliteDialect, type Database } from '@petstore/core';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';

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
    return { db, kind: 'postgres', pool, close: () => db.destroy() };
  }
  const dataDir = options.dataDir ?? './.petstore-data';
  if (!dataDir.includes('://')) await mkdir(dataDir, { recursive: true });
  // PGlite's default 128 MB of shared buffers would stay resident; an embedded catalogue needs far less.
  const pglite = await PGlite.create(dataDir, { postgresqlconf: ['shared_buffers=16MB'] });
  const db = new Kysely<Database>({ dialect: createPGliteDialect(pglite) });
  return { db, kind: 'pglite', close: () => db.destroy() };
}
