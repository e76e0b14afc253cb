// Reads a V8 .cpuprofile (node --cpu-prof) and sums self time per function and per package.
import { readFile } from 'node:fs/promises';
import { relative } from 'node:path';

const ROOT = new URL('../../', import.meta.url).pathname;

function shortUrl(url) {
  if (!url) return '';
  const path = url.startsWith('file://') ? new URL(url).pathname : url;
  if (!path.startsWith('/')) return path;
  // Code run from the snapshot of the build (lib/snapshot.mjs) is named as in the working tree.
  return relative(ROOT, path)
    .replace(/^bench\/\.build\/run-[^/]+\/server\/dist\//, 'apps/server/dist/')
    .replace(/^bench\/\.build\/run-[^/]+\/node_modules\/@petstore\/([^/]+)\//, 'packages/$1/');
}

/** Where a function lives, coarsely: a dependency, a workspace package, Node itself, or V8's own buckets. */
function packageOf(url, functionName) {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  const path = shortUrl(url);
  if (path.startsWith('node:')) return 'node (core)';
  const dependency = path.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/);
  if (dependency) return dependency[1];
  const workspace = path.match(/^(packages|apps)\/([^/]+)\//);
  if (workspace) return `@petstore/${workspace[2]}`;
  return path;
}

/**
 * Self time per function and per package, from sample counts. With `windows` ([startMs, endMs] wall-clock pairs)
 * and `exitedAt` (wall-clock ms the process ended, when the profile was written), only samples taken inside a
 * window count, so start-up and idle time stay out; `(idle)` never counts.
 */
export async function summarizeProfile(file, { windows, exitedAt, top = 15 } = {}) {
  const profile = JSON.parse(await readFile(file, 'utf8'));
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const perSampleMs = (profile.endTime - profile.startTime) / 1000 / Math.max(1, profile.samples.length);

  let inWindow = () => true;
  let windowed = false;
  if (windows?.length && exitedAt) {
    const offsets = []; // each sample's wall-clock time, assuming the profile ends when the process exited
    let t = profile.startTime;
    for (const delta of profile.timeDeltas) offsets.push((t += delta));
    const wallOf = (i) => exitedAt - (profile.endTime - offsets[i]) / 1000;
    inWindow = (i) => windows.some(([from, to]) => wallOf(i) >= from && wallOf(i) <= to);
    windowed = true;
  }

  const byFunction = new Map();
  const byPackage = new Map();
  let counted = 0;
  profile.samples.forEach((id, i) => {
    const { callFrame } = nodes.get(id);
    if (callFrame.functionName === '(idle)' || !inWindow(i)) return;
    counted += 1;
    const name = callFrame.functionName || '(anonymous)';
    const where = callFrame.url ? `${shortUrl(callFrame.url)}:${callFrame.lineNumber + 1}` : '';
    const key = `${name} ${where}`;
    const fn = byFunction.get(key) ?? { name, where, package: packageOf(callFrame.url, name), samples: 0 };
    fn.samples += 1;
    byFunction.set(key, fn);
    const pkg = fn.package;
    byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + 1);
  });

  const share = (samples) => ({ selfMs: Math.round(samples * perSampleMs), percent: Math.round((samples / Math.max(1, counted)) * 1000) / 10 });
  return {
    file: shortUrl(file),
    windowed,
    samples: counted,
    sampledMs: Math.round(counted * perSampleMs),
    functions: [...byFunction.values()]
      .sort((a, b) => b.samples - a.samples)
      .slice(0, top)
      .map(({ samples, ...fn }) => ({ ...fn, ...share(samples) })),
    packages: [...byPackage.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, samples]) => ({ name, ...share(samples) })),
  };
}
