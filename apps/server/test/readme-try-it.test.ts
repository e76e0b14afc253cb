import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { outputOf } from '@petstore/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { startServer, type RunningServer } from '../src/server.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const KEY = 'readme-try-it-key-0123456789';

/** The shell blocks of the README's "Try it" section, as a reader pastes them one after the other. */
async function tryIt(): Promise<string[]> {
  const readme = await readFile(join(root, 'README.md'), 'utf8');
  const start = readme.indexOf('## Try it');
  const section = readme.slice(start, readme.indexOf('\n## ', start + 1));
  return [...section.matchAll(/```sh\n([\s\S]*?)\n```/g)].map((block) => block[1]!);
}

describe("the README's Try it", () => {
  let running: RunningServer;
  beforeAll(async () => {
    running = await startServer(loadConfig({ PETSTORE_DATA_DIR: 'memory://', PORT: '0', PETSTORE_API_KEYS: `${KEY}:pro`, PETSTORE_LOG_LEVEL: 'silent' }));
  });
  afterAll(() => running.close());

  it('runs as written on a fresh store, the key it names and the address aside, answering what its comments say', async () => {
    const blocks = await tryIt();
    expect(blocks).toHaveLength(3);
    // The key `npm start` printed, and this server's address instead of port 3000.
    const script = ['set -euo pipefail', ...blocks]
      .join('\n')
      .replace(/^KEY=psk_….*$/m, `KEY=${KEY}`)
      .replaceAll('http://127.0.0.1:3000', running.url);
    const child = spawn('bash', ['-c', script], { env: { PATH: process.env.PATH ?? '' }, stdio: ['ignore', 'pipe', 'pipe'] });
    const { code, stdout, stderr } = await outputOf(child);
    expect(code, stderr).toBe(0);
    expect(stdout.startsWith('{"id":1,"name":"Rex","categoryId":1,"status":"available"}')).toBe(true);
    // The safe update: changed once, then refused with the current version, then the 304 and the 204.
    expect(stdout).toContain('{"id":1,"name":"Rex","categoryId":1,"status":"sold"}');
    expect(stdout).toMatch(/\{"code":"precondition_failed","message":"[^"]+","status":412\}/);
    expect(stdout).toMatch(/}304\n204\n\{"id":2,"name":"Tom"/);
    // The sales: placed and completed, placed and cancelled, and the inventory that follows (Rex was deleted).
    expect(stdout).toMatch(/\{"id":1,"petId":2,"status":"placed","placedAt":"[^"]+"\}\{"id":1,"petId":2,"status":"completed",/);
    expect(stdout).toMatch(/\{"id":2,"petId":3,"status":"placed","placedAt":"[^"]+"\}\{"id":2,"petId":3,"status":"cancelled",/);
    expect(stdout.endsWith('{"available":1,"pending":0,"sold":1}')).toBe(true);
  });
});
