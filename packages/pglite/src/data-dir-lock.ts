import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { link, mkdir, readdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The folder of the lock's records, inside the data folder (a restore never brings it back; see `restoreDataDir`). */
export const LOCK_FOLDER = 'petstore.lock';
/**
 * The lock file of releases before {@link LOCK_FOLDER}: the holder's pid alone, made with `O_EXCL`. A holder also
 * keeps it, so that such a release, started on the folder during an upgrade, is refused too.
 */
export const LEGACY_LOCK_FILE = 'petstore.pid';

/** Who holds the folder: a process, told apart from a later one with the same pid by its start time and boot. */
interface Holder {
  pid: number;
  /** The process's start (clock ticks since boot, from `/proc`); absent where there is no `/proc`. */
  start?: string;
  /** The kernel's boot id: a record from before a reboot holds nothing. */
  boot?: string;
}

type LockRecord = Holder | { free: true };

/** A second process (or a second open in this one) asked for a data folder that another holds. */
export class DataDirInUseError extends Error {
  override readonly name = 'DataDirInUseError';
  /** The pid of the process that holds the folder. */
  readonly pid: number;

  constructor(dataDir: string, pid: number) {
    super(
      `The embedded database in ${dataDir} is in use by process ${pid}. Stop it first, or use PostgreSQL (DATABASE_URL) to run several processes.`,
    );
    this.pid = pid;
  }
}

/** A held data folder. */
export interface DataDirLock {
  /** Gives the folder up; once only, later calls do nothing. */
  release(): Promise<void>;
}

function readOr(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return undefined;
  }
}

/** The start time of a process from `/proc/<pid>/stat` (field 22, counted after the command's closing parenthesis). */
function startOf(pid: number | 'self'): string | undefined {
  const stat = readOr(`/proc/${pid}/stat`);
  return stat?.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
}

function self(): Holder {
  const start = startOf('self');
  const boot = readOr('/proc/sys/kernel/random/boot_id');
  return { pid: process.pid, ...(start ? { start } : {}), ...(boot ? { boot } : {}) };
}

/**
 * Whether the holder of a record still runs. A pid that runs now belongs to the holder only if it started when the
 * holder did: pids are reused, and a container's first process is always pid 1.
 */
function isRunning(holder: Holder, me: Holder): boolean {
  if (holder.boot && me.boot && holder.boot !== me.boot) return false;
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const start = holder.pid === me.pid ? me.start : startOf(holder.pid);
  return !holder.start || !start || holder.start === start;
}

function parse(text: string): LockRecord | undefined {
  try {
    const record = JSON.parse(text) as LockRecord;
    return 'free' in record || Number.isInteger(record.pid) ? record : undefined;
  } catch {
    return undefined;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Whether a pid runs, as releases before the lock's records judged it (a pid file holds no start time). */
function pidRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Takes the lock file of earlier releases as they did (created only if absent), so that neither kind of release
 * opens a folder the other holds. A file naming a pid that runs is a holder, unless that pid is this process's
 * (a container's process restarted under the same pid) or the holder of the record just taken over, which wrote it
 * before it was killed.
 */
async function claimLegacyFile(dataDir: string, takenOver: number | undefined): Promise<void> {
  const path = join(dataDir, LEGACY_LOCK_FILE);
  for (let attempt = 0; attempt < 10; attempt++) {
    try {
      await writeFile(path, String(process.pid), { flag: 'wx' });
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const pid = Number((await readFile(path, 'utf8').catch(() => '')).trim());
    if (Number.isSafeInteger(pid) && pid > 0 && pid !== process.pid && pid !== takenOver && pidRuns(pid)) {
      throw new DataDirInUseError(dataDir, pid);
    }
    await unlink(path).catch(() => {});
  }
  throw new Error(`Could not lock the embedded database folder ${dataDir}.`);
}

/** Removes the lock file of earlier releases if it is still this process's. */
async function releaseLegacyFile(dataDir: string): Promise<void> {
  const path = join(dataDir, LEGACY_LOCK_FILE);
  if ((await readFile(path, 'utf8').catch(() => '')).trim() === String(process.pid)) await unlink(path).catch(() => {});
}

/**
 * Writes `record` as generation `generation`, in one atomic step: the record is written whole to a file of its own
 * and then hard-linked under the generation's name, which fails if that name exists, so of several processes that
 * saw the same last generation exactly one makes the next. Returns false when another made it first.
 */
async function claim(folder: string, generation: number, record: LockRecord): Promise<boolean> {
  const draft = join(folder, `draft-${process.pid}-${randomBytes(6).toString('hex')}`);
  await writeFile(draft, JSON.stringify(record), { flag: 'wx' });
  try {
    await link(draft, join(folder, String(generation)));
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    await unlink(draft).catch(() => {});
  }
}

/** The generations in the folder, newest first. */
async function generations(folder: string): Promise<number[]> {
  const names = await readdir(folder);
  return names.filter((name) => /^\d+$/.test(name)).map(Number).sort((a, b) => b - a);
}

/** Removes the generations before `newest`: only the newest one says who holds the folder. */
async function prune(folder: string, newest: number) {
  for (const generation of await generations(folder).catch(() => [])) {
    if (generation < newest) await unlink(join(folder, String(generation))).catch(() => {});
  }
}

/**
 * Claims an embedded data folder for this process, as PGlite allows one process per folder: a second opener, in
 * another process or this one, gets a {@link DataDirInUseError} naming the holder's pid before it touches the
 * database. A lock left by a process that no longer runs (killed, crashed) is taken over.
 *
 * The lock is a folder of numbered records, `petstore.lock/1`, `2`, …: the highest number says who holds the data
 * folder (a pid with its start time) or that it is free. Taking the folder, taking over a stale holder, and giving
 * it up all write the next number, which only one process can create (see `claim`), so two processes that find the
 * same stale holder at once never both take it. The holder also keeps the pid file of earlier releases
 * ({@link LEGACY_LOCK_FILE}), and one that such a release holds refuses the folder too. Works between processes of
 * one machine (one pid namespace).
 * @example const lock = await lockDataDir('./.petstore-data'); … await lock.release()
 */
export async function lockDataDir(dataDir: string): Promise<DataDirLock> {
  const folder = join(dataDir, LOCK_FOLDER);
  await mkdir(folder, { recursive: true });
  const me = self();
  for (let attempt = 0; attempt < 100; attempt++) {
    const [newest = 0] = await generations(folder);
    let takenOver: number | undefined;
    if (newest > 0) {
      const text = await readFile(join(folder, String(newest)), 'utf8').catch(() => undefined);
      // Gone: a newer generation replaced it and pruned it.
      if (text === undefined) continue;
      const record = parse(text);
      // A record is written whole before it gets its name; one that does not parse was damaged, and after a second
      // of seeing it so it holds nothing.
      if (record === undefined) {
        await sleep(20);
        if (attempt < 50) continue;
      } else if (!('free' in record)) {
        if (isRunning(record, me)) throw new DataDirInUseError(dataDir, record.pid);
        takenOver = record.pid;
      }
    }
    const mine = newest + 1;
    if (!(await claim(folder, mine, me))) continue;
    await prune(folder, mine);
    const giveUp = async () => {
      // Nobody writes past our generation while we hold it, so the next one is ours to write.
      if (await claim(folder, mine + 1, { free: true })) await prune(folder, mine + 1);
    };
    try {
      await claimLegacyFile(dataDir, takenOver);
    } catch (error) {
      await giveUp();
      throw error;
    }
    let released = false;
    return {
      async release() {
        if (released) return;
        released = true;
        await releaseLegacyFile(dataDir);
        await giveUp();
      },
    };
  }
  throw new Error(`Could not lock the embedded database folder ${dataDir}.`);
}
