import { existsSync } from 'node:fs';
import { mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { PGlite } from '@electric-sql/pglite';
import type { Database } from '@petstore/core';
import { Kysely, sql } from 'kysely';
import { create, extract } from 'tar';
import { ADMIN_FOLDER } from './admin-folder.js';
import { LEGACY_LOCK_FILE, LOCK_FOLDER, lockDataDir, type DataDirLock } from './data-dir-lock.js';
import { createPGliteDialect } from './pglite-dialect.js';
import { builtFile, pgliteTemplate, TEMPLATE_FILE } from './pglite-template.js';
import { startUpkeep } from './upkeep.js';

const PGLITE_SETTINGS = {
  // PostgreSQL's defaults (128 MB of shared buffers, 64 MB for maintenance) would stay resident in PGlite's memory;
  // an embedded catalogue needs far less. The startup progress timer (every 10 s by default) is re-armed after each
  // statement in PGlite, and its timer keeps node's event loop alive: a script that forgets `close()` never exited.
  postgresqlconf: [
    'shared_buffers=8MB',
    'wal_buffers=256kB',
    'maintenance_work_mem=4MB',
    'work_mem=1MB',
    'temp_buffers=1MB',
    'log_startup_progress_interval=0',
  ],
};

const isMarker = (path: string) => path.replace(/^\/+/, '') === 'PG_VERSION';
const topOf = (path: string) => path.replace(/^\/+/, '').split('/')[0];
/** The lock's records, and the lock file of earlier releases: a backup carries the holder's, never to be restored. */
const isLock = (path: string) => {
  const top = topOf(path);
  return top === LOCK_FOLDER || top === LEGACY_LOCK_FILE || top === ADMIN_FOLDER;
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
  // Synchronous: node-tar's streaming extraction takes several times as long (0.55 s against 0.16 s here).
  extract({ file, cwd: dataDir, sync: true, noMtime: true, filter: (path) => !isMarker(path) });
  extract({ file, cwd: dataDir, sync: true, noMtime: true, filter: isMarker });
}

/** The embedded database, open. */
export interface EmbeddedDatabase {
  db: Kysely<Database>;
  /**
   * A consistent copy of the database as a gzipped tar, taken while it serves: no statement or transaction of this
   * store runs during the copy.
   */
  backup(): Promise<Blob>;
  /** Closes the database and gives its data folder up. */
  close(): Promise<void>;
}

/** Takes the folder's lock, runs `open`, and gives the lock up again if `open` fails. */
async function underLock<T>(dataDir: string, open: (lock: DataDirLock) => Promise<T>): Promise<T> {
  await mkdir(dataDir, { recursive: true });
  const lock = await lockDataDir(dataDir);
  try {
    return await open(lock);
  } catch (error) {
    await lock.release();
    throw error;
  }
}

/** How the embedded database is opened. */
export interface EmbeddedOptions {
  /** How often its tables are looked at for the upkeep autovacuum would do (ms, default 10000): see {@link startUpkeep}. */
  upkeepEveryMs?: number | undefined;
}

/**
 * Opens the embedded database in `dataDir` (a folder, created and filled from the template when new, and held by
 * this process until `close`: see {@link lockDataDir}), or in memory for `memory://`.
 * @example const { db, close } = await openEmbeddedDatabase('memory://')
 */
export async function openEmbeddedDatabase(dataDir: string, options: EmbeddedOptions = {}): Promise<EmbeddedDatabase> {
  if (dataDir.includes('://')) {
    const loadDataDir = await pgliteTemplate();
    const pglite = await PGlite.create(dataDir, { ...PGLITE_SETTINGS, ...(loadDataDir ? { loadDataDir } : {}) });
    return wrap(pglite, options);
  }
  return underLock(dataDir, async (lock) => {
    if (!existsSync(join(dataDir, 'PG_VERSION'))) initialiseDataDir(dataDir);
    return wrap(await PGlite.create(dataDir, PGLITE_SETTINGS), options, lock, dataDir);
  });
}

/**
 * The data folder as a gzipped tar, without the host's private folder (PGlite's own dump would read its socket and
 * fail). The files are the database's: PGlite writes a folder's files straight through, so after a checkpoint, with
 * no statement running, they are the database.
 */
async function tarOf(dataDir: string): Promise<Blob> {
  const entries = (await readdir(dataDir)).filter((name) => name !== ADMIN_FOLDER);
  const chunks: Buffer[] = [];
  for await (const chunk of create({ cwd: dataDir, gzip: true, portable: true }, entries)) chunks.push(chunk as Buffer);
  return new Blob(chunks);
}

function wrap(pglite: PGlite, options: EmbeddedOptions, lock?: DataDirLock, dataDir?: string): EmbeddedDatabase {
  const db = new Kysely<Database>({ dialect: createPGliteDialect(pglite) });
  const upkeep = startUpkeep(db, options.upkeepEveryMs);
  // Holding the dialect's one connection keeps every statement and transaction of the store out of the copy.
  const backup = () =>
    db.connection().execute(async (connection) => {
      await sql`checkpoint`.execute(connection);
      return dataDir === undefined ? pglite.dumpDataDir('gzip') : tarOf(dataDir);
    });
  return {
    db,
    backup,
    async close() {
      try {
        await upkeep.stop();
        await db.destroy();
      } finally {
        await lock?.release();
      }
    },
  };
}

/**
 * Restores a backup made by {@link EmbeddedDatabase.backup} into a data folder that holds no database yet, under
 * the folder's lock; the restored database keeps its ids, so new ones continue after the last. The backup's files
 * are unpacked `PG_VERSION` last, as a new folder is, and without the lock records of the process that took it.
 * @example await restoreDataDir('./.petstore-data', new Blob([await readFile('backup.tar.gz')]))
 */
export async function restoreDataDir(dataDir: string, backup: Blob): Promise<void> {
  await mkdir(dataDir, { recursive: true });
  const lock = await lockDataDir(dataDir);
  try {
    if (existsSync(join(dataDir, 'PG_VERSION'))) {
      throw new Error(`${dataDir} already holds a database; restore into an empty folder.`);
    }
    const bytes = Buffer.from(await backup.arrayBuffer());
    for (const filter of [(path: string) => !isMarker(path) && !isLock(path), isMarker]) {
      await pipeline(Readable.from([bytes]), extract({ cwd: dataDir, noMtime: true, filter }));
    }
    const pglite = await PGlite.create(dataDir, PGLITE_SETTINGS);
    await pglite.query('select 1 from pets limit 1');
    await pglite.close();
  } finally {
    await lock.release();
  }
}
