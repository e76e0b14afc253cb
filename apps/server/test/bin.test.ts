import { spawn } from 'node:child_process';
import { constants } from 'node:fs';
import { access, copyFile, mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { outputOf } from '@petstore/testing';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const linkedBin = join(root, 'node_modules', '.bin', 'petstore');
const launcher = fileURLToPath(new URL('../bin/petstore.js', import.meta.url));

async function run(file: string, args: string[]) {
  const child = spawn(file, args, { env: { PATH: process.env.PATH ?? '' }, stdio: ['ignore', 'pipe', 'pipe'] });
  const { code, stdout, stderr } = await outputOf(child);
  return { code: code as number, stdout, stderr };
}

describe('the petstore bin as npm links it', () => {
  it('is linked by npm install to the committed launcher, which is executable', async () => {
    expect(await realpath(linkedBin)).toBe(await realpath(launcher));
    await expect(access(linkedBin, constants.X_OK)).resolves.toBeUndefined();
  });

  it('runs `petstore --help` through node_modules/.bin as npx does', async () => {
    const { code, stdout, stderr } = await run(linkedBin, ['--help']);
    expect(code, stderr).toBe(0);
    expect(stdout).toContain('Usage: petstore keys <command>');
  });

  it('says to build first when dist/cli.js is missing', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'petstore-bin-'));
    try {
      const copy = join(dir, 'petstore.js');
      await copyFile(launcher, copy);
      const { code, stderr } = await run(process.execPath, [copy, '--help']);
      expect(code).toBe(1);
      expect(stderr).toContain('Run "npm run build" first');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
