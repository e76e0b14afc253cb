import { readFile } from 'node:fs/promises';
import { UsageError } from './cli-commands.js';
import type { CliIo } from './cli-io.js';
import { reachService } from './cli-service.js';
import type { Config } from './config.js';
import { writePrivateFile } from './private-file.js';

/**
 * `petstore backup FILE`: a consistent copy of the embedded database, through the running service when it runs.
 * @example await backup(config, 'copy.tar.gz', io)
 */
export async function backup(config: Config, file: string, io: CliIo): Promise<number> {
  if (!config.dataDirIsFolder) {
    throw new UsageError('backup copies the embedded database in a folder; for PostgreSQL use pg_dump (see the README).');
  }
  const admin = await reachService(config, io);
  let bytes: Buffer;
  if (admin) {
    bytes = await admin.backup();
  } else {
    // Under the folder's lock, taken by openDatabase.
    const { openDatabase } = await import('@petstore/embed');
    const database = await openDatabase({ dataDir: config.dataDir });
    try {
      bytes = Buffer.from(await (await database.backup!()).arrayBuffer());
    } finally {
      await database.close();
    }
  }
  // It holds the key hashes: readable by its owner only.
  await writePrivateFile(file, bytes);
  io.out.write(`Wrote a backup of ${config.dataDir} to ${file} (${bytes.length} bytes).\n`);
  return 0;
}

/**
 * `petstore restore FILE`: fills an empty embedded data folder from such a copy.
 * @example await restore(config, 'copy.tar.gz', io)
 */
export async function restore(config: Config, file: string, io: CliIo): Promise<number> {
  if (!config.dataDirIsFolder) throw new UsageError('restore fills an embedded data folder (PETSTORE_DATA_DIR); for PostgreSQL use pg_restore.');
  const bytes = await readFile(file);
  // Under the folder's lock, taken by restoreDataDir.
  const { restoreDataDir } = await import('@petstore/embed');
  await restoreDataDir(config.dataDir, new Blob([bytes]));
  io.out.write(`Restored ${file} into ${config.dataDir}.\n`);
  return 0;
}
