// Copies the built service aside, so a rebuild of the working tree during a run cannot change what is measured.
import { existsSync, readFileSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, rm, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { buildTime } from './machine.mjs';

/**
 * Copies apps/server's dist and package.json and every workspace package's package.json and dist into a folder under bench/.build
 * (inside the repository, so third-party imports still resolve from its node_modules). Retries if the build
 * changed while it copied. Resolves with the path of the copied main.js, the build time and a remove function.
 * @example const { main, remove } = await snapshotBuild(root)
 */
export async function snapshotBuild(root) {
  for (let attempt = 0; attempt < 5; attempt++) {
    const before = buildTime(root);
    await mkdir(join(root, 'bench/.build'), { recursive: true });
    const dir = await mkdtemp(join(root, 'bench/.build/run-'));
    // With its package.json beside dist, as in the repository: the service reads its version from there.
    await cp(join(root, 'apps/server/dist'), join(dir, 'server/dist'), { recursive: true });
    await cp(join(root, 'apps/server/package.json'), join(dir, 'server/package.json'));
    for (const name of await readdir(join(root, 'packages'))) {
      const source = join(root, 'packages', name);
      if (!existsSync(join(source, 'dist'))) continue;
      const { name: packageName } = JSON.parse(readFileSync(join(source, 'package.json'), 'utf8'));
      const target = join(dir, 'node_modules', ...packageName.split('/'));
      await cp(join(source, 'package.json'), join(target, 'package.json'));
      await cp(join(source, 'dist'), join(target, 'dist'), { recursive: true });
      // What npm installed for this package alone (a version other than the root's, as core's lru-cache).
      if (existsSync(join(source, 'node_modules'))) await symlink(join(source, 'node_modules'), join(target, 'node_modules'));
    }
    const remove = () => rm(dir, { recursive: true, force: true });
    if (buildTime(root) === before) return { main: join(dir, 'server/dist/main.js'), builtAt: before, remove };
    await remove();
    await new Promise((resolve) => setTimeout(resolve, 2000));
  }
  throw new Error('the build kept changing while it was copied; run again when no build is running');
}
