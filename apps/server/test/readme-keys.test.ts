import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { outputOf } from '@petstore/testing';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));

/** The shell block of the README's "API keys" section, as a reader would paste it. */
async function keyToolExample(): Promise<string> {
  const readme = await readFile(join(root, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## API keys'));
  const block = /```sh\n([\s\S]*?)\n```/.exec(section)?.[1];
  if (!block) throw new Error('the README has no key tool example');
  return block;
}

describe("the README's key tool example", () => {
  it('runs as written, line by line, on a fresh embedded database', { timeout: 120_000 }, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'petstore-readme-keys-'));
    try {
      const script = `set -euo pipefail\n${await keyToolExample()}\n`;
      const child = spawn('bash', ['-c', script], {
        cwd: root,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? dir, PETSTORE_DATA_DIR: dir },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const { code, stdout, stderr } = await outputOf(child);
      expect(code, stderr).toBe(0);
      expect(stdout).toMatch(/Usage: petstore keys/);
      expect(stdout.match(/^psk_[0-9A-Za-z]{38}$/gm)).toHaveLength(4); // three creates and a roll
      expect(stdout).toContain('now allows 5000 requests a minute');
      expect(stdout).toMatch(/Revoked key \d+\./);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
