import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { DataDirInUseError, LEGACY_LOCK_FILE, LOCK_FOLDER, lockDataDir } from './data-dir-lock.js';
import { openEmbeddedDatabase, restoreDataDir } from './open-embedded.js';

// The children run the built package (`npm test` builds first), as a host process would.
const opener = fileURLToPath(new URL('./testing/open-data-dir.mjs', import.meta.url));

const folders: string[] = [];
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  await Promise.all(folders.splice(0).map((folder) => rm(folder, { recursive: true, force: true })));
});
const newFolder = async () => {
  const folder = await mkdtemp(join(tmpdir(), 'petstore-lock-'));
  folders.push(folder);
  return folder;
};

/** A child process that opens the folder through the package; `next()` reads its next line of output. */
function openInChild(dataDir: string) {
  const child = spawn(process.execPath, [opener, dataDir], { stdio: ['pipe', 'pipe', 'pipe'] });
  children.push(child);
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  // 'close', not 'exit': by then all it printed has been read.
  const exited = once(child, 'close').then(([code, signal]) => ({ code: code as number | null, signal: signal as string | null }));
  return {
    child,
    exited,
    stderr: () => stderr,
    async next(): Promise<string> {
      const { value, done } = await lines.next();
      if (done) throw new Error(`the child ended without a line; stderr: ${stderr}`);
      return value;
    },
    send(line: string) {
      child.stdin!.write(`${line}\n`);
    },
  };
}

/** A child that opened the folder and made one create, both acknowledged. */
async function holderWithPet(folder: string, name: string) {
  const holder = openInChild(folder);
  expect(await holder.next()).toBe(`open ${holder.child.pid}`);
  holder.send(`create ${name}`);
  expect(await holder.next()).toMatch(/^created \d+$/);
  return holder;
}

describe('one process per data folder', () => {
  it('refuses a second process with the holder pid, and the holder keeps every write', async () => {
    const folder = await newFolder();
    const first = await holderWithPet(folder, 'Before');

    const second = openInChild(folder);
    expect(await second.next()).toBe(
      `refused ${first.child.pid} The embedded database in ${folder} is in use by process ${first.child.pid}. Stop it first, or use PostgreSQL (DATABASE_URL) to run several processes.`,
    );
    // Refused before it touched the database: a clean exit of its own, no abort.
    expect(await second.exited).toEqual({ code: 3, signal: null });
    expect(second.stderr()).toBe('');

    first.send('create After');
    expect(await first.next()).toMatch(/^created \d+$/);
    first.send('close');
    expect(await first.exited).toEqual({ code: 0, signal: null });

    const third = openInChild(folder);
    expect(await third.next()).toBe(`open ${third.child.pid}`);
    third.send('count');
    expect(await third.next()).toBe('count 2');
    third.send('close');
    expect((await third.exited).code).toBe(0);
  });

  it('is taken over after kill -9, with the acknowledged write kept; of two racers exactly one gets it', async () => {
    const folder = await newFolder();
    const killed = await holderWithPet(folder, 'Acknowledged');
    killed.child.kill('SIGKILL');
    await killed.exited;

    // Both find the dead holder's record; the next generation can be made once, so one opens and one is refused.
    const racers = [openInChild(folder), openInChild(folder)];
    const answers = await Promise.all(racers.map((racer) => racer.next()));
    const winner = racers.find((racer, i) => answers[i] === `open ${racer.child.pid}`);
    expect(winner, answers.join(' | ')).toBeDefined();
    const loser = racers.find((racer) => racer !== winner)!;
    expect(answers[racers.indexOf(loser)]).toMatch(new RegExp(`^refused ${winner!.child.pid} .*in use by process ${winner!.child.pid}\\.`));
    expect((await loser.exited).code).toBe(3);

    winner!.send('count');
    expect(await winner!.next()).toBe('count 1');
    winner!.send('close');
    expect((await winner!.exited).code).toBe(0);
  });

  it('refuses a second open in the same process until the first is closed', async () => {
    const folder = await newFolder();
    const database = await openEmbeddedDatabase(folder);
    const second = await openEmbeddedDatabase(folder).catch((error: unknown) => error);
    expect(second).toBeInstanceOf(DataDirInUseError);
    expect((second as DataDirInUseError).pid).toBe(process.pid);
    await database.close();
    const again = await openEmbeddedDatabase(folder);
    await again.close();
  });

  it('lets exactly one of many takers at once take over a stale lock', async () => {
    const folder = await newFolder();
    await (await lockDataDir(folder)).release();
    const dead = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
    await once(dead, 'exit');
    await writeFile(join(folder, LOCK_FOLDER, '9'), JSON.stringify({ pid: dead.pid }));
    // Started together, they read the same stale record and all try to write the next one.
    const outcomes = await Promise.allSettled(Array.from({ length: 8 }, () => lockDataDir(folder)));
    const taken = outcomes.filter((outcome) => outcome.status === 'fulfilled');
    expect(taken).toHaveLength(1);
    for (const outcome of outcomes) {
      if (outcome.status === 'rejected') expect(outcome.reason).toBeInstanceOf(DataDirInUseError);
    }
    await (taken[0] as PromiseFulfilledResult<Awaited<ReturnType<typeof lockDataDir>>>).value.release();
  });

  it('takes over a record whose pid now belongs to another process (pid reuse)', async () => {
    const folder = await newFolder();
    const lock = await lockDataDir(folder);
    await lock.release();
    // A running process with the pid of the record, started at another time than the record says.
    const other = spawn('sleep', ['30'], { stdio: 'ignore' });
    children.push(other);
    const [newest] = (await readdir(join(folder, LOCK_FOLDER))).map(Number).sort((a, b) => b - a);
    await writeFile(join(folder, LOCK_FOLDER, String(newest! + 1)), JSON.stringify({ pid: other.pid, start: '1' }));
    const taken = await lockDataDir(folder);
    await taken.release();
    // The same record with the process's real start time holds the folder.
    const stat = readFileSync(`/proc/${other.pid}/stat`, 'utf8');
    const start = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
    const generations = (await readdir(join(folder, LOCK_FOLDER))).map(Number).sort((a, b) => b - a);
    await writeFile(join(folder, LOCK_FOLDER, String(generations[0]! + 1)), JSON.stringify({ pid: other.pid, start }));
    await expect(lockDataDir(folder)).rejects.toThrow(`in use by process ${other.pid}`);
  });

  it('refuses a folder that an earlier release holds by its petstore.pid, naming it, and takes it once that process ends', async () => {
    const folder = await newFolder();
    // What releases before petstore.lock/ wrote while they held a folder: the pid alone.
    const earlier = spawn('sleep', ['30'], { stdio: 'ignore' });
    children.push(earlier);
    await writeFile(join(folder, LEGACY_LOCK_FILE), String(earlier.pid));
    const refused = openInChild(folder);
    expect(await refused.next()).toBe(
      `refused ${earlier.pid} The embedded database in ${folder} is in use by process ${earlier.pid}. Stop it first, or use PostgreSQL (DATABASE_URL) to run several processes.`,
    );
    expect((await refused.exited).code).toBe(3);
    // Refused without keeping anything: the file is still the earlier release's and no record holds the folder.
    expect(await readFile(join(folder, LEGACY_LOCK_FILE), 'utf8')).toBe(String(earlier.pid));
    await expect(lockDataDir(folder)).rejects.toThrow(`in use by process ${earlier.pid}`);

    earlier.kill('SIGKILL');
    await once(earlier, 'exit');
    const lock = await lockDataDir(folder);
    expect(await readFile(join(folder, LEGACY_LOCK_FILE), 'utf8')).toBe(String(process.pid));
    await lock.release();
    expect(existsSync(join(folder, LEGACY_LOCK_FILE))).toBe(false);
  });

  it('keeps petstore.pid while it holds a folder, so an earlier release is refused too, and a killed holder\'s is taken over', async () => {
    const folder = await newFolder();
    const holder = await holderWithPet(folder, 'Held');
    // An earlier release creates the file only if it is absent, and refuses while the pid in it runs.
    expect(await readFile(join(folder, LEGACY_LOCK_FILE), 'utf8')).toBe(String(holder.child.pid));
    holder.child.kill('SIGKILL');
    await holder.exited;
    // Left behind by the killed holder, beside its record: both are taken over.
    expect(existsSync(join(folder, LEGACY_LOCK_FILE))).toBe(true);
    const next = openInChild(folder);
    expect(await next.next()).toBe(`open ${next.child.pid}`);
    expect(await readFile(join(folder, LEGACY_LOCK_FILE), 'utf8')).toBe(String(next.child.pid));
    next.send('close');
    expect((await next.exited).code).toBe(0);
    expect(existsSync(join(folder, LEGACY_LOCK_FILE))).toBe(false);
  });

  it('is not taken for memory://, and a restored backup does not bring the lock of the process that made it', async () => {
    const a = await openEmbeddedDatabase('memory://');
    const b = await openEmbeddedDatabase('memory://');
    await Promise.all([a.close(), b.close()]);

    const source = await newFolder();
    // Some generations first, so that the source's record is ahead of any the restore writes in the new folder.
    for (let i = 0; i < 3; i++) await (await lockDataDir(source)).release();
    const database = await openEmbeddedDatabase(source);
    await database.db.insertInto('pets').values({ name: 'Kept', category_id: 1, status: 'available' }).execute();
    await writeFile(join(source, 'petstore.pid'), String(process.pid)); // the lock file of earlier versions
    const backup = await database.backup(); // holds this process's record, and this process still runs
    try {
      const target = await newFolder();
      await restoreDataDir(target, backup);
      expect(existsSync(join(target, 'petstore.pid'))).toBe(false);
      const restored = openInChild(target);
      expect(await restored.next()).toBe(`open ${restored.child.pid}`);
      restored.send('count');
      expect(await restored.next()).toBe('count 1');
      restored.send('close');
      expect((await restored.exited).code).toBe(0);
    } finally {
      await database.close();
    }
  });
});
