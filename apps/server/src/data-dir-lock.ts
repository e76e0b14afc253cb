import { mkdir, open, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Claims the embedded database folder for this process: PGlite allows one process per folder, so a second server or
 * the key tool is refused while the first runs. Returns the release function.
 * @example const release = await acquireDataDirLock('./.petstore-data')
 */
export async function acquireDataDirLock(dataDir: string): Promise<() => Promise<void>> {
  await mkdir(dataDir, { recursive: true });
  const path = join(dataDir, 'petstore.pid');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const file = await open(path, 'wx');
      await file.writeFile(String(process.pid));
      await file.close();
      return () => rm(path, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const pid = Number((await readFile(path, 'utf8').catch(() => '')).trim());
      if (pid && pid !== process.pid && isRunning(pid)) {
        throw new Error(
          `The embedded database in ${dataDir} is in use by process ${pid}. Stop it first, or use PostgreSQL (DATABASE_URL) to run several processes.`,
        );
      }
      await rm(path, { force: true });
    }
  }
  throw new Error(`Could not lock the embedded database folder ${dataDir}.`);
}
