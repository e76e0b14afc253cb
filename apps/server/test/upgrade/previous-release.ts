import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../../../', import.meta.url));
/** Where the previous release is recorded; `npm run release -- --record` moves it to a release once published. */
const recordFile = fileURLToPath(new URL('./previous-release.json', import.meta.url));
const builder = fileURLToPath(new URL('./build-previous-release.mjs', import.meta.url));

/** The previous release, built: its entry points, as `npm start` and `petstore` run them. */
export interface PreviousRelease {
  commit: string;
  /** `@petstore/server@VERSION`, as its build named it (its package.json's version before builds were named). */
  name: string;
  dir: string;
  mainJs: string;
  cliJs: string;
}

/**
 * The release before this code, from the commit recorded in `previous-release.json`, built once per machine and kept
 * by commit under $TMPDIR/petstore-previous-release (`build-previous-release.mjs`, which CI runs as a step
 * of its own before the tests); when the cache lacks it, it is built here first. Fails with a message saying what to
 * fetch when the clone does not hold the commit (a shallow clone).
 * @example const previous = await previousRelease(); startProcess(env, [], previous.mainJs)
 */
export async function previousRelease(): Promise<PreviousRelease> {
  const { commit } = JSON.parse(await readFile(recordFile, 'utf8')) as { commit: string };
  let dir: string;
  try {
    dir = (await run(process.execPath, [builder], { cwd: root, maxBuffer: 16 * 1024 * 1024 })).stdout.trim();
  } catch (error) {
    throw new Error(String((error as { stderr?: string }).stderr || error));
  }
  const server = JSON.parse(await readFile(join(dir, 'apps/server/package.json'), 'utf8')) as { name: string; version: string };
  const built = await readFile(join(dir, 'apps/server/build-info.json'), 'utf8').then((text) => JSON.parse(text) as { version: string }, () => server);
  return {
    commit,
    name: `${server.name}@${built.version}`,
    dir,
    mainJs: join(dir, 'apps/server/dist/main.js'),
    cliJs: join(dir, 'apps/server/dist/cli.js'),
  };
}
