#!/usr/bin/env node
// Builds the previous release (the commit in previous-release.json) once per machine and keeps it by commit under
// $TMPDIR/petstore-previous-release/COMMIT (a cache of the machine, as turbo keeps one): `git archive` of that commit,
// installed from its own lock file (`npm ci`, from npm's cache when it can; its `prepare` builds it). Later runs find
// it there and do nothing. CI runs this as a step of its own before the slow lane, so no test waits for a build;
// the upgrade tests run it too when the cache lacks the commit (the first `npm run test:slow` on a machine).
// Prints the folder on stdout. `node apps/server/test/upgrade/build-previous-release.mjs`
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../../../', import.meta.url));
const recordFile = fileURLToPath(new URL('./previous-release.json', import.meta.url));
// Outside the checkout's node_modules: TypeScript refuses to emit declarations of a project that lives in a
// node_modules folder (TS2883, "cannot be named without a reference to … node_modules/zod"). Per machine, by commit.
const cache = join(tmpdir(), 'petstore-previous-release');

const { commit } = JSON.parse(await readFile(recordFile, 'utf8'));
const dir = join(cache, commit);
const built = join(dir, '.petstore-built');

try {
  await run('git', ['cat-file', '-e', `${commit}^{commit}`], { cwd: root });
} catch {
  console.error(
    `The previous release, commit ${commit} (recorded in apps/server/test/upgrade/previous-release.json), is not in ` +
      'this clone, and the upgrade tests build it from there. Fetch the whole history (git fetch --unshallow, or a ' +
      'full clone) and run them again.',
  );
  process.exit(1);
}

if (!existsSync(built)) {
  await buildOnce().catch((error) => {
    console.error(error.message);
    process.exit(1);
  });
}
console.log(dir);

/** Builds under a lock folder, so that two runs at once build once; a lock older than 20 minutes was left by a run cut short. */
async function buildOnce() {
  await mkdir(cache, { recursive: true });
  const lock = `${dir}.lock`;
  for (;;) {
    try {
      await mkdir(lock);
      break;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
      const age = Date.now() - (await stat(lock).then((s) => s.mtimeMs, () => Date.now()));
      if (age > 20 * 60_000) await rm(lock, { recursive: true, force: true });
      else await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  }
  try {
    if (!existsSync(built)) await build();
  } finally {
    await rm(lock, { recursive: true, force: true });
  }
}

async function build() {
  const started = Date.now();
  // A folder left by a build cut short is made again from scratch.
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  await run('bash', ['-c', 'git archive --format=tar "$1" | tar -x -C "$2"', 'archive', commit, dir], { cwd: root, maxBuffer: 16 * 1024 * 1024 });
  // `npm ci` builds too (the root's `prepare`); the packages of the lock file come from npm's cache when it has them.
  const { DATABASE_URL: _database, REDIS_URL: _redis, ...inherited } = process.env;
  const env = { ...inherited, CI: 'true', TURBO_TELEMETRY_DISABLED: '1', NO_UPDATE_NOTIFIER: '1' };
  try {
    await run('npm', ['ci', '--prefer-offline', '--no-audit', '--no-fund'], { cwd: dir, env, maxBuffer: 64 * 1024 * 1024 });
  } catch (error) {
    // Thrown, not exited: the lock is given back on the way out, so the next run does not wait for it.
    throw new Error(
      `Could not install and build the previous release (${commit}) in ${dir}:\n${String(error.stdout ?? '').slice(-4000)}\n${String(error.stderr ?? '').slice(-4000)}`,
    );
  }
  await writeFile(built, `${commit}\n`);
  console.error(`previous release ${commit.slice(0, 12)}: unpacked, installed and built in ${Math.round((Date.now() - started) / 1000)} s, kept in ${dir}`);
}
