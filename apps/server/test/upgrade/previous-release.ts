import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../../../', import.meta.url));
/** Where the previous release is recorded; `npm run release -- --record` moves it to a release once published. */
const recordFile = fileURLToPath(new URL('./previous-release.json', import.meta.url));

/** The previous release, checked out and built: its entry points, as `npm start` and `petstore` run them. */
export interface PreviousRelease {
  commit: string;
  /** `@petstore/server@VERSION`, from its own package.json. */
  name: string;
  dir: string;
  mainJs: string;
  cliJs: string;
}

const git = (...args: string[]) => run('git', args, { cwd: root, maxBuffer: 16 * 1024 * 1024 });

/**
 * The release before this code, from the commit recorded in `previous-release.json`: checked out into a worktree in
 * the temporary folder, installed from the lock file of that commit (`npm ci`, from npm's cache when it can) and
 * built, once per commit; later runs reuse the build. Fails with a message saying what to fetch when the clone does
 * not hold the commit (a shallow clone).
 * @example const previous = await previousRelease(); startProcess(env, [], previous.mainJs)
 */
export async function previousRelease(): Promise<PreviousRelease> {
  const { commit } = JSON.parse(await readFile(recordFile, 'utf8')) as { commit: string };
  try {
    await git('cat-file', '-e', `${commit}^{commit}`);
  } catch {
    throw new Error(
      `The previous release, commit ${commit} (recorded in apps/server/test/upgrade/previous-release.json), is not in ` +
        'this clone, and the upgrade tests build it from there. Fetch the whole history (git fetch --unshallow, or a ' +
        'full clone) and run them again.',
    );
  }
  const dir = join(tmpdir(), `petstore-release-${commit.slice(0, 12)}`);
  const built = join(dir, '.petstore-built');
  if (!existsSync(built)) await buildOnce(commit, dir, built);
  const server = JSON.parse(await readFile(join(dir, 'apps/server/package.json'), 'utf8')) as { name: string; version: string };
  return {
    commit,
    name: `${server.name}@${server.version}`,
    dir,
    mainJs: join(dir, 'apps/server/dist/main.js'),
    cliJs: join(dir, 'apps/server/dist/cli.js'),
  };
}

/** Builds under a lock folder, so that two test runs at once build once; a lock older than 20 minutes was left by a run cut short. */
async function buildOnce(commit: string, dir: string, built: string) {
  const lock = `${dir}.lock`;
  for (;;) {
    try {
      await mkdir(lock);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const age = Date.now() - (await stat(lock).then((s) => s.mtimeMs, () => Date.now()));
      if (age > 20 * 60_000) await rm(lock, { recursive: true, force: true });
      else await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  }
  try {
    if (!existsSync(built)) await build(commit, dir, built);
  } finally {
    await rm(lock, { recursive: true, force: true });
  }
}

async function build(commit: string, dir: string, built: string) {
  // A folder left by a build cut short is checked out again from scratch.
  await rm(dir, { recursive: true, force: true });
  await git('worktree', 'prune');
  await mkdir(dir, { recursive: true });
  await git('worktree', 'add', '--force', '--detach', dir, commit);
  const started = Date.now();
  // `npm ci` builds too (the root's `prepare`); the packages of the lock file come from npm's cache when it has them.
  const { DATABASE_URL: _database, REDIS_URL: _redis, ...inherited } = process.env;
  const env = { ...inherited, CI: 'true', TURBO_TELEMETRY_DISABLED: '1', NO_UPDATE_NOTIFIER: '1' };
  try {
    await run('npm', ['ci', '--prefer-offline', '--no-audit', '--no-fund'], { cwd: dir, env, maxBuffer: 64 * 1024 * 1024 });
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new Error(`Could not install and build the previous release (${commit}) in ${dir}:\n${stdout.slice(-4000)}\n${stderr.slice(-4000)}`);
  }
  await writeFile(built, `${commit}\n`);
  console.info(`previous release ${commit.slice(0, 12)}: checked out, installed and built in ${Math.round((Date.now() - started) / 1000)} s`);
}
