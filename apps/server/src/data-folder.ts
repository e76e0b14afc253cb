import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';

/** The note's file under the user's state folder: the absolute path of the last data folder that held keys. */
const NOTE = join('petstore', 'last-data-dir');

/**
 * The embedded data folder as the start-up line names it: its absolute path (`memory://` as it is).
 * @example absoluteDataDir('./.petstore-data') // '/srv/petstore/.petstore-data'
 */
export function absoluteDataDir(dataDir: string): string {
  return dataDir === 'memory://' ? dataDir : resolve(dataDir);
}

/**
 * The data folder noted by an earlier start (one that held keys), when it is another folder than `dataDir` and still
 * exists: an upgrade started from another checkout opened an empty folder while the data stayed there.
 * @example const earlier = await earlierDataFolder(stateDir, '/srv/new/.petstore-data')
 */
export async function earlierDataFolder(stateDir: string, dataDir: string): Promise<string | undefined> {
  const noted = await readFile(join(stateDir, NOTE), 'utf8').then(
    (text) => text.trim(),
    () => '',
  );
  if (!noted || noted === absoluteDataDir(dataDir)) return undefined;
  const found = await stat(noted).then(
    (info) => info.isDirectory(),
    () => false,
  );
  return found ? noted : undefined;
}

/**
 * Notes `dataDir` (a folder that holds keys) as this user's last data folder; written whole (a temporary file renamed
 * over the note), so a reader never sees half a path.
 * @example await noteDataFolder(stateDir, '/srv/petstore/.petstore-data')
 */
export async function noteDataFolder(stateDir: string, dataDir: string): Promise<void> {
  const file = join(stateDir, NOTE);
  await mkdir(join(stateDir, 'petstore'), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}`;
  await writeFile(temporary, `${absoluteDataDir(dataDir)}\n`, { mode: 0o600 });
  await rename(temporary, file);
}
