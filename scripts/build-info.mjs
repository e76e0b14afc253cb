// `npm run build`'s step that names the build: writes apps/server/build-info.json, `{ "version", "commit" }`, which
// the service reads at start (`/healthz`, `petstore --version`, `petstore_build_info`, the release it records in the
// database and names when it refuses one). A step of its own after turbo, never a package's cached build: turbo
// replays a build by its sources, and the commit is not one of them.
// - A released build (the release commit, "Release @petstore/server@0.2.0", with no pending changeset in
//   .changeset/): the service's version, `0.2.0`.
// - Between releases: the version `changeset version` would give the service, then `-dev+` and the short commit,
//   `0.2.0-dev+2b2a807`, so that no build is taken for a release, nor two builds for each other. A commit after a
//   release with no changeset yet (a change of the docs) is the next patch's: `0.2.1-dev+5c3d9e0`.
// The commit (and its subject) comes from git when the folder is a checkout, else from scripts/archived-commit.txt,
// which `git archive` (and a host's "download as zip") fills in (`export-subst` in .gitattributes); with neither,
// `0.2.0-dev`, or the plain version when nothing is pending (a copy of a release).
// The file is written only when it changes, and is packed with the service (`files`), so a tarball names its build.
// `node scripts/build-info.mjs [--print]`
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const server = join(root, 'apps/server');
const out = join(server, 'build-info.json');
const { name, version: packageVersion } = JSON.parse(readFileSync(join(server, 'package.json'), 'utf8'));

/**
 * The checkout's commit and its subject, only when this folder is the top of its own git checkout (a copy inside
 * another is not).
 */
function gitCommit() {
  try {
    const git = (...args) => execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    if (realpathSync(git('rev-parse', '--show-toplevel')) !== realpathSync(root)) return undefined;
    return { commit: git('rev-parse', '--short', 'HEAD'), subject: git('log', '-1', '--format=%s') };
  } catch {
    return undefined;
  }
}

/** The commit and subject `git archive` wrote into scripts/archived-commit.txt; a checkout's reads `$Format:…$`. */
function archivedCommit() {
  const file = join(root, 'scripts/archived-commit.txt');
  const match = /^([0-9a-f]{7,40})(?: (.*))?$/.exec(existsSync(file) ? readFileSync(file, 'utf8').trim() : '');
  return match ? { commit: match[1], subject: match[2] ?? '' } : undefined;
}

/** The service's next version by changesets' own plan, or undefined when nothing is pending (a released build). */
async function nextVersion() {
  if (!existsSync(join(root, '.changeset/config.json'))) return undefined;
  // changesets' planner, as the installed @changesets/cli resolves it (its own dependency).
  const fromCli = createRequire(createRequire(join(root, 'package.json')).resolve('@changesets/cli/package.json'));
  const planner = fromCli('@changesets/get-release-plan');
  const plan = await (planner.default ?? planner)(root);
  if (plan.changesets.length === 0) return undefined;
  const planned = plan.releases.find((release) => release.name === name)?.newVersion;
  if (planned && planned !== packageVersion) return planned;
  // Changes pending in other packages only: the service's next patch, as a change it depends on would bring.
  return nextPatch();
}

function nextPatch() {
  const [major, minor, patch] = packageVersion.split(/[.+-]/).map(Number);
  return `${major}.${minor}.${patch + 1}`;
}

const made = gitCommit() ?? archivedCommit();
const commit = made?.commit;
// Nothing pending: the release itself, or a later commit that has no changeset yet (the next patch's build).
const next = (await nextVersion()) ?? (made && made.subject !== `Release ${name}@${packageVersion}` ? nextPatch() : undefined);
const version = next === undefined ? packageVersion : `${next}-dev${commit ? `+${commit}` : ''}`;
const text = `${JSON.stringify({ version, ...(commit ? { commit } : {}) }, null, 2)}\n`;
if (!existsSync(out) || readFileSync(out, 'utf8') !== text) writeFileSync(out, text);
if (process.argv.includes('--print')) console.log(version);
