import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** How often each process rereads the clock's offset (libfaketime's FAKETIME_CACHE_DURATION, whole seconds). */
const REREAD_SECONDS = 1;
/** How long after a move every process has read it: a process rereads at most REREAD_SECONDS after its last read. */
const READ_BY_MS = 2 * REREAD_SECONDS * 1_000 + 200;

/** libfaketime's library (Debian's `faketime` package, `.ci/install-faketime.sh`), or undefined. */
function libfaketime(): string | undefined {
  const roots = ['/usr/lib', '/usr/local/lib', ...(existsSync('/usr/lib') ? readdirSync('/usr/lib').map((arch) => join('/usr/lib', arch)) : [])];
  return roots.map((root) => join(root, 'faketime', 'libfaketime.so.1')).find((file) => existsSync(file));
}

/** The wall clock of the server processes a test starts, which the test moves (see {@link processClock}). */
export interface ProcessClock {
  /** The environment that puts a process on this clock: pass it to each process the test starts. */
  readonly env: Record<string, string>;
  /** The processes' time: ms since the epoch. */
  now(): number;
  /**
   * Makes sure the processes' current minute has at least `seconds` left, so that counts a test expects within one
   * fixed 60-second window do not straddle two: when it has not, moves their clock forward to the start of the next
   * minute and resolves once every process reads it (about 2 s), never waiting for the wall clock.
   */
  minuteWithRoom(seconds: number): Promise<void>;
  /** Deletes the clock's file; processes on it keep the time they last read. */
  close(): Promise<void>;
}

/**
 * A clock for server processes a test starts (their quota windows are fixed clock minutes), which begins at the start
 * of a minute and which the test moves forward instead of waiting for the wall clock: libfaketime (`LD_PRELOAD`)
 * gives each process on `env` the wall clock plus an offset it rereads each second from a file of the test's own;
 * monotonic time (timers) is untouched.
 * Several processes on one clock agree, as a fleet's machines do. Needs Debian's `faketime` package
 * (`.ci/install-faketime.sh`), as the slow lane's other programs are needed.
 * @example const clock = await processClock(); const server = await startProcess({ ...env, ...clock.env }); await clock.minuteWithRoom(10)
 */
export async function processClock(): Promise<ProcessClock> {
  const library = libfaketime();
  if (!library) throw new Error('libfaketime is not installed: apt-get install faketime (.ci/install-faketime.sh does it)');
  const folder = await mkdtemp(join(tmpdir(), 'petstore-clock-'));
  const file = join(folder, 'offset');
  // The processes start at the start of a minute (nothing reads the file yet), so most tests never move it again.
  let offsetMs = 60_000 - (Date.now() % 60_000);
  const write = () => writeFile(file, `+${(offsetMs / 1_000).toFixed(3)}\n`);
  await write();
  const now = () => Date.now() + offsetMs;
  return {
    env: {
      LD_PRELOAD: library,
      FAKETIME_TIMESTAMP_FILE: file,
      FAKETIME_CACHE_DURATION: String(REREAD_SECONDS),
      FAKETIME_DONT_FAKE_MONOTONIC: '1',
    },
    now,
    async minuteWithRoom(seconds) {
      if (60_000 - (now() % 60_000) >= seconds * 1_000) return;
      // Forward only, so that no window a process has counted in comes back; 20 ms past the minute's start.
      offsetMs += 60_000 - (now() % 60_000) + 20;
      await write();
      await new Promise((resolve) => setTimeout(resolve, READ_BY_MS));
    },
    close: () => rm(folder, { recursive: true, force: true }),
  };
}
