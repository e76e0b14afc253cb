// Describes the machine a run happened on.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import os from 'node:os';

const require = createRequire(import.meta.url);

function cpuModel() {
  const fromOs = os.cpus()[0]?.model?.trim();
  if (fromOs) return fromOs;
  try {
    return readFileSync('/proc/cpuinfo', 'utf8').match(/^model name\s*:\s*(.+)$/m)?.[1] ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

/** CPU model, cores, memory, OS, Node and load generator versions. */
export function describeMachine() {
  return {
    cpu: cpuModel(),
    cores: os.availableParallelism?.() ?? os.cpus().length,
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    autocannon: require('autocannon/package.json').version,
    loadAverage: os.loadavg().map((v) => Math.round(v * 100) / 100),
  };
}

/** The commit measured, and whether the working tree (outside bench/) had uncommitted changes. */
export function describeRevision(cwd) {
  try {
    const git = (...args) => execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const head = git('rev-parse', '--short', 'HEAD');
    const dirty = git('status', '--porcelain', '--', '.', ':(exclude)bench').length > 0;
    return `commit ${head}${dirty ? ' with uncommitted changes' : ''}`;
  } catch {
    return 'commit unknown';
  }
}

/** The newest modification time of the built service (apps/server/dist and every packages/NAME/dist), as an ISO string. */
export function buildTime(root) {
  let newest = 0;
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.js')) newest = Math.max(newest, statSync(path).mtimeMs);
    }
  };
  const dists = [join(root, 'apps/server/dist'), ...readdirSync(join(root, 'packages')).map((p) => join(root, 'packages', p, 'dist'))];
  for (const dist of dists) {
    try {
      walk(dist);
    } catch {
      // a package without a build
    }
  }
  return newest ? new Date(newest).toISOString() : undefined;
}
