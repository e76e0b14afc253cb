import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mainJs } from './helpers.js';

const KEY = 'data-folder-key-0123456789abcdef';

/**
 * Starts the service in `cwd` without PETSTORE_DATA_DIR (the working directory's `.petstore-data`), waits for its
 * start-up line, stops it with SIGTERM and answers its lines.
 */
async function startAndStop(cwd: string, stateHome: string, env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [mainJs], {
    cwd,
    env: { PATH: process.env.PATH ?? '', PORT: '0', PETSTORE_LOG_LEVEL: 'info', XDG_STATE_HOME: stateHome, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr.resume();
  const closed = once(child, 'close');
  for (let i = 0; !out.includes('"msg":"Pet Store listening"'); i++) {
    if (child.exitCode !== null || i > 600) throw new Error(`the service did not start:\n${out}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill('SIGTERM');
  await closed;
  expect(child.exitCode).toBe(0);
  return out
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('where the embedded data lives', () => {
  let root: string;
  beforeAll(async () => {
    root = await realpath(await mkdtemp(join(tmpdir(), 'petstore-data-folder-')));
    await mkdir(join(root, 'old-checkout'));
    await mkdir(join(root, 'new-checkout'));
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  it('names the folder by its absolute path, and says loudly when an upgrade elsewhere opens an empty one', { timeout: 120_000 }, async () => {
    const state = join(root, 'state');
    const first = await startAndStop(join(root, 'old-checkout'), state, { PETSTORE_API_KEYS: `${KEY}:pro` });
    const oldFolder = join(root, 'old-checkout', '.petstore-data');
    expect(first.find((line) => line.msg === 'Pet Store listening')).toMatchObject({ dataDir: oldFolder });
    expect(first.filter((line) => line.level === 40)).toEqual([]);

    // The next release, installed in another checkout and started there as before: an empty folder of its own.
    const second = await startAndStop(join(root, 'new-checkout'), state);
    const newFolder = join(root, 'new-checkout', '.petstore-data');
    expect(second.find((line) => line.msg === 'Pet Store listening')).toMatchObject({ dataDir: newFolder });
    const warning = second.find((line) => line.level === 40);
    expect(warning).toMatchObject({ dataDir: newFolder, earlierDataDir: oldFolder });
    expect(String(warning!.msg)).toContain(`PETSTORE_DATA_DIR=${oldFolder}`);
    // No development key printed for a folder the operator will leave.
    expect(second.some((line) => JSON.stringify(line).includes('development'))).toBe(false);

    // Pointed at the old folder, it serves it, and says nothing.
    const third = await startAndStop(join(root, 'new-checkout'), state, { PETSTORE_DATA_DIR: oldFolder });
    expect(third.find((line) => line.msg === 'Pet Store listening')).toMatchObject({ dataDir: oldFolder });
    expect(third.filter((line) => line.level === 40)).toEqual([]);
  });
});
