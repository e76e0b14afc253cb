import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openPetStore } from '@petstore/embed';
import { outputOf } from '@petstore/testing';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const KEY = 'readme-usage-key-0123456789';

/** The shell block of the README's "Usage" section, as a reader would paste it. */
async function usageExample(): Promise<string> {
  const readme = await readFile(join(root, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Usage'));
  const block = /```sh\n([\s\S]*?)\n```/.exec(section)?.[1];
  if (!block) throw new Error('the README has no usage example');
  return block;
}

describe("the README's usage example", () => {
  it('runs as written on an embedded database with counted requests, writing its CSV and its page', { timeout: 120_000 }, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'petstore-readme-usage-'));
    // The files the block writes, in the folder it runs in (the repository, where `npx petstore` is the tool).
    const written = [join(root, 'usage-2026-11.csv'), join(root, 'usage.html')];
    try {
      const service = await openPetStore({ dataDir: dir, apiKeys: [{ key: KEY, plan: 'enterprise', limits: { perMinute: 100, perDay: 1000 } }], clock: { now: () => Date.parse('2026-11-20T12:00:00Z') } });
      for (let i = 0; i < 3; i++) await service.store.listPets({}, { apiKey: KEY });
      await service.close();
      const child = spawn('bash', ['-c', `set -euo pipefail\n${await usageExample()}\n`], {
        cwd: root,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? dir, PETSTORE_DATA_DIR: dir },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const { code, stdout, stderr } = await outputOf(child);
      expect(code, stderr).toBe(0);
      expect(stdout).toMatch(/^day\s+key_id/m);
      expect(JSON.parse(stdout.slice(stdout.indexOf('['), stdout.lastIndexOf(']') + 1))).toEqual([
        expect.objectContaining({ day: '2026-11-20', plan: 'enterprise', operationId: 'listPets', served: 3 }),
      ]);
      expect((await readFile(written[0]!, 'utf8')).split('\r\n')[1]).toBe('2026-11-20,1,,configured,enterprise,listPets,3,0,0,0,0,0,1');
      expect(stdout).toContain('\r\n2026-11-01,2026-11-30,1,,configured,enterprise,3,0,0,0,0,0,1\r\n');
      expect(await readFile(written[1]!, 'utf8')).toContain('<canvas id="top-keys"');
    } finally {
      await Promise.all([dir, ...written].map((path) => rm(path, { recursive: true, force: true })));
    }
  });
});
