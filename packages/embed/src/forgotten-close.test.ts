import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

// The built package in a process of its own, as a host script runs it (`npm test` builds first).
const script = fileURLToPath(new URL('./testing/forgotten-close.mjs', import.meta.url));
const folders: string[] = [];
afterAll(async () => {
  await Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true })));
});

/** Runs the script; resolves with the ms from its `done` to its exit, or rejects when it is still running after 40 s. */
async function secondsToExit(dataDir: string): Promise<number> {
  const child = spawn(process.execPath, [script, dataDir], { stdio: ['ignore', 'pipe', 'inherit'] });
  let doneAt = 0;
  child.stdout.on('data', (chunk: Buffer) => {
    if (chunk.toString().includes('done')) doneAt = Date.now();
  });
  const killer = setTimeout(() => child.kill('SIGKILL'), 120_000);
  // 'close', not 'exit': by then its `done` has been read, however late the pipe was read.
  const [code, signal] = await once(child, 'close');
  clearTimeout(killer);
  expect({ code, signal, done: doneAt > 0 }).toEqual({ code: 0, signal: null, done: true });
  return (Date.now() - doneAt) / 1000;
}

describe('a host script that forgets close() on the embedded database', () => {
  // PGlite's last timer after a statement (PostgreSQL's idle statistics flush, 10 s) fires once; none is re-armed.
  it('exits by itself within about 10 s of its last statement, with memory:// and with a data folder', { timeout: 150_000 }, async () => {
    const folder = await mkdtemp(join(tmpdir(), 'petstore-forgotten-'));
    folders.push(folder);
    // Both at once: each mostly waits for its last timer.
    const [inMemory, inFolder] = await Promise.all([secondsToExit('memory://'), secondsToExit(join(folder, 'data'))]);
    console.log(`exited ${inMemory.toFixed(1)} s (memory://) and ${inFolder.toFixed(1)} s (data folder) after its last statement`);
    expect(inMemory).toBeLessThan(20);
    expect(inFolder).toBeLessThan(20);
  });
});
