import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../../', import.meta.url));
const serverVersion = (dir: string) => (JSON.parse(readFileSync(join(dir, 'apps/server/package.json'), 'utf8')) as { version: string }).version;
/** The next minor and patch of this repository's service, as changesets would make them. */
const [major, minor, patch] = serverVersion(root).split('.').map(Number) as [number, number, number];
const NEXT_MINOR = `${major}.${minor + 1}.0`;
const NEXT_PATCH = `${major}.${minor + 1}.1`;

// scripts/build-info.mjs, the build step that names a build (README, Releasing), run in scratch repositories of this
// one's release files: its package.json files, the changesets configuration and the step itself.
const git = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com' };
const sh = async (cwd: string, command: string, ...args: string[]) =>
  (await run(command, args, { cwd, env: { PATH: process.env.PATH ?? '', HOME: cwd, ...git } })).stdout.trim();
const named = async (cwd: string) => {
  const printed = await sh(cwd, process.execPath, 'scripts/build-info.mjs', '--print');
  const written = JSON.parse(readFileSync(join(cwd, 'apps/server/build-info.json'), 'utf8')) as { version: string; commit?: string };
  expect(written.version).toBe(printed);
  return written;
};
const changeset = (dir: string, name: string, pkg: string, bump: string) =>
  writeFileSync(join(dir, '.changeset', `${name}.md`), `---\n'${pkg}': ${bump}\n---\n\n${name}\n`);
const commit = async (dir: string, message: string) => {
  await sh(dir, 'git', 'add', '-A');
  await sh(dir, 'git', 'commit', '-q', '-m', message);
  return sh(dir, 'git', 'rev-parse', '--short', 'HEAD');
};

/** A folder with node_modules linked to this repository's (changesets' planner is a dev dependency). */
function folder(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
  return dir;
}

describe("the build step that names the service's build", { timeout: 120_000 }, () => {
  const made: string[] = [];
  let scratch: string;
  beforeAll(async () => {
    scratch = folder('petstore-build-info-');
    made.push(scratch);
    const files = ['package.json', '.gitattributes', '.changeset/config.json', 'scripts/build-info.mjs', 'scripts/archived-commit.txt'];
    for (const dir of ['packages', 'apps']) for (const name of readdirSync(join(root, dir))) files.push(`${dir}/${name}/package.json`);
    for (const file of files) cpSync(join(root, file), join(scratch, file));
    writeFileSync(join(scratch, '.gitignore'), 'node_modules\napps/server/build-info.json\n');
    await sh(scratch, 'git', 'init', '-q');
  });
  afterAll(() => {
    for (const dir of made) rmSync(dir, { recursive: true, force: true });
  });

  it('names a build between releases by the next version and its commit, in a checkout, an archive, and a copy with neither', async () => {
    changeset(scratch, 'a-feature', '@petstore/server', 'minor');
    const sha = await commit(scratch, 'A feature');
    expect(await named(scratch)).toEqual({ version: `${NEXT_MINOR}-dev+${sha}`, commit: sha });

    // `git archive` (and a host's "download as zip") writes the commit into scripts/archived-commit.txt.
    const archive = folder('petstore-build-info-archive-');
    made.push(archive);
    await run('bash', ['-c', 'git -C "$1" archive HEAD | tar -x -C "$2"', 'archive', scratch, archive]);
    expect(await named(archive)).toEqual({ version: `${NEXT_MINOR}-dev+${sha}`, commit: sha });

    const copy = folder('petstore-build-info-copy-');
    made.push(copy);
    cpSync(scratch, copy, { recursive: true, filter: (path) => !/\/(\.git|node_modules)$/.test(path) });
    expect(await named(copy)).toEqual({ version: `${NEXT_MINOR}-dev` });
  });

  it('names a build whose pending changes are in other packages only by the next patch', async () => {
    rmSync(join(scratch, '.changeset/a-feature.md'));
    changeset(scratch, 'a-client-fix', '@petstore/client', 'patch');
    const sha = await commit(scratch, 'A fix of the client');
    expect((await named(scratch)).version).toBe(`${major}.${minor}.${patch + 1}-dev+${sha}`);
  });

  it('names a build after the release step by the plain version it released', async () => {
    rmSync(join(scratch, '.changeset/a-client-fix.md'));
    changeset(scratch, 'a-feature', '@petstore/server', 'minor');
    await commit(scratch, 'A feature');
    // What scripts/release.mjs runs: changeset version consumes the changesets and sets the versions.
    await sh(scratch, process.execPath, join(root, 'node_modules/@changesets/cli/bin.js'), 'version');
    const sha = await commit(scratch, `Release @petstore/server@${NEXT_MINOR}`);
    expect(serverVersion(scratch)).toBe(NEXT_MINOR);
    expect(await named(scratch)).toEqual({ version: NEXT_MINOR, commit: sha });
    // So is an archive of the release commit.
    const archive = folder('petstore-build-info-release-archive-');
    made.push(archive);
    await run('bash', ['-c', 'git -C "$1" archive HEAD | tar -x -C "$2"', 'archive', scratch, archive]);
    expect(await named(archive)).toEqual({ version: NEXT_MINOR, commit: sha });
    // A commit after it with no changeset yet (the docs, say) is not the release: the next patch's build.
    writeFileSync(join(scratch, 'NOTES.md'), 'A note.\n');
    const docs = await commit(scratch, 'A note after the release');
    expect(await named(scratch)).toEqual({ version: `${NEXT_PATCH}-dev+${docs}`, commit: docs });
    // And the next change names the builds after it by the release after.
    changeset(scratch, 'after', '@petstore/server', 'patch');
    const next = await commit(scratch, 'After the release');
    expect((await named(scratch)).version).toBe(`${NEXT_PATCH}-dev+${next}`);
  });

  it('is packed with the service, so that a tarball names its build', async () => {
    const { stdout } = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts', '-w', 'apps/server'], { cwd: root });
    const [{ files }] = JSON.parse(stdout) as [{ files: { path: string }[] }];
    expect(files.map((file) => file.path)).toContain('build-info.json');
  });
});
