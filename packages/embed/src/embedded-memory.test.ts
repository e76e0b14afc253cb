import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

// A host process of its own (the built package, as a host runs it): opens the store embedded, makes 1,000 creates
// and 20 lists in-process, and prints its peak RSS in MB.
const host = fileURLToPath(new URL('./testing/embedded-peak.mjs', import.meta.url));
const folders: string[] = [];
afterAll(async () => {
  await Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true })));
});

async function peakMb(dataDir: string, nodeOptions: string[]): Promise<number> {
  const { stdout } = await promisify(execFile)(process.execPath, [...nodeOptions, host, dataDir], { timeout: 120_000 });
  return Number(stdout.trim());
}

// Measured on 2 cores (README, "What the embedded database costs a host process"), 3 runs: with `--liftoff-only`
// 220–226 MB with a data folder and 305–315 MB with memory:// (the service itself, same work over HTTP: 189–195
// and 320–326 MB); without PGlite settings of the package (PostgreSQL's default buffers) 305–347 and 430 MB.
describe('the peak memory of a host process on the embedded database', () => {
  it('stays under 250 MB with a data folder, and under 350 MB with memory://, when node runs with --liftoff-only', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'petstore-peak-'));
    folders.push(folder);
    const inFolder = await peakMb(join(folder, 'data'), ['--liftoff-only']);
    const inMemory = await peakMb('memory://', ['--liftoff-only']);
    expect(inFolder, `peak ${inFolder} MB`).toBeGreaterThan(50);
    expect(inFolder, `peak ${inFolder} MB`).toBeLessThan(250);
    expect(inMemory, `peak ${inMemory} MB`).toBeLessThan(350);
  });
});
