// `npm run release`: cuts a release from the pending changesets, as one commit on the current branch.
// `changeset version` bumps every package with a pending change (the private service and test workspace too,
// `privatePackages` in .changeset/config.json), their internal dependencies, and writes each one's CHANGELOG.md; the
// lock file is brought along (`npm ci` refuses a lock whose workspace versions differ); all of it is committed as
// "Release @petstore/server@X". The upgrade tests still start from the release before (their record is unchanged), so
// the release commit's CI checks the way to it.
// `npm run release -- --record`, once that release is published: records its commit as where the next release's
// upgrade tests start (apps/server/test/upgrade/previous-release.json), in a commit of its own.
// Refuses a working tree with changes, or no pending changeset. Publishing stays a separate step (README, Releasing).
// Every build names itself: `npm run build` ends with scripts/build-info.mjs, which writes apps/server/build-info.json
// (`/healthz`, `petstore --version`, `petstore_build_info`, the release recorded in the database). While changesets are
// pending, a build is `<next>-dev+<short commit>` (`0.2.0-dev+2b2a807`), <next> being what `changeset version` would
// make of the service; the release commit this script makes has none pending, so its build, and every build of it
// (`npm ci`, a `git archive`), is the plain version (`0.2.0`). Nothing to run by hand: build after this step.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const recordFile = 'apps/server/test/upgrade/previous-release.json';
const sh = (command, args) => execFileSync(command, args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim();
const step = (command, args) => execFileSync(command, args, { cwd: root, stdio: 'inherit' });
const fail = (message) => {
  console.error(`release: ${message}`);
  process.exit(1);
};

if (sh('git', ['status', '--porcelain'])) fail('the working tree has changes; commit or stash them first.');

const serverVersion = () => JSON.parse(readFileSync(join(root, 'apps/server/package.json'), 'utf8')).version;

if (process.argv.includes('--record')) {
  const commit = sh('git', ['log', '-1', '--format=%H', '--grep=^Release @petstore/server@']);
  if (!commit) fail('no release commit ("Release @petstore/server@X") on this branch: run npm run release first.');
  const release = sh('git', ['log', '-1', '--format=%s', commit]).replace(/^Release /, '');
  writeFileSync(join(root, recordFile), `${JSON.stringify({ commit }, null, 2)}\n`);
  step('git', ['add', recordFile]);
  step('git', ['commit', '--quiet', '-m', `Upgrade tests start from ${release} (${commit.slice(0, 12)})`]);
  console.log(`release: the next release's upgrade tests start from ${release}, commit ${commit.slice(0, 12)}.`);
  process.exit(0);
}

const pending = readdirSync(join(root, '.changeset')).filter((name) => name.endsWith('.md') && name !== 'README.md');
if (pending.length === 0) fail('no pending changeset in .changeset/: nothing to release.');

const workspaces = () =>
  ['apps', 'packages'].flatMap((folder) =>
    readdirSync(join(root, folder)).map((name) => {
      const { name: pkg, version } = JSON.parse(readFileSync(join(root, folder, name, 'package.json'), 'utf8'));
      return { pkg, version };
    }),
  );
const before = new Map(workspaces().map(({ pkg, version }) => [pkg, version]));

step('npx', ['--no-install', 'changeset', 'version']);
step('npm', ['install', '--package-lock-only', '--ignore-scripts', '--no-audit', '--no-fund']);

const changed = workspaces().filter(({ pkg, version }) => before.get(pkg) !== version);
if (!changed.some(({ pkg }) => pkg === '@petstore/server')) fail('changeset version left @petstore/server as it was; add a changeset for it.');
const release = `@petstore/server@${serverVersion()}`;
const lines = changed.map(({ pkg, version }) => `- ${pkg} ${before.get(pkg)} → ${version}`);

step('git', ['add', '--all', '.changeset', 'apps', 'packages', 'package-lock.json']);
step('git', ['commit', '--quiet', '-m', `Release ${release}`, '-m', lines.join('\n')]);
console.log(`release: ${release}, commit ${sh('git', ['rev-parse', '--short=12', 'HEAD'])}:\n${lines.join('\n')}`);
console.log('release: next, npm ci && npm run build && npm test, then npx changeset publish (README, Releasing);');
console.log('release: once published, npm run release -- --record starts the next release\'s upgrade tests from it.');
