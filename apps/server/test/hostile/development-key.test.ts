import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { databaseUrl, scratchPostgres } from '@petstore/testing';
import { describe, expect, it } from 'vitest';
import { runCli, startProcess, type ServerProcess } from '../helpers.js';

// DECISIONS "Running it": a development key only on the first start of an embedded database that has never held a
// key; never with DATABASE_URL (a fleet printed one working key per instance), never again once a key has existed.
const printedKey = (stderr: string) => /\n {2}(psk_[0-9A-Za-z]{38})\n/.exec(stderr)?.[1];
/** Every line on stdout, read as the JSON a log collector takes it for; a line that is not JSON fails the test. */
const jsonLines = (stdout: string) => stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>);

describe('the development key', () => {
  it('is printed on the first start of a new embedded database, and never again once every key is revoked', { timeout: 120_000 }, async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'petstore-devkey-'));
    const started: ServerProcess[] = [];
    try {
      const first = await startProcess({ PETSTORE_DATA_DIR: dataDir });
      started.push(first);
      // The key for the person at the terminal, on stderr; on stdout only JSON lines, one saying a key was made.
      const key = printedKey(first.stderr());
      expect(key, first.stderr()).toBeDefined();
      expect(first.stdout()).not.toContain('psk_');
      expect(jsonLines(first.stdout())).toContainEqual(expect.objectContaining({ plan: 'free', label: 'development', msg: expect.stringContaining('development key was created') }));
      const revoked = await runCli(['keys', 'revoke', '1'], { PETSTORE_DATA_DIR: dataDir });
      expect(revoked.code, revoked.stderr).toBe(0);
      expect(await first.stop()).toBe(0);

      const second = await startProcess({ PETSTORE_DATA_DIR: dataDir });
      started.push(second);
      expect(second.stdout() + second.stderr()).not.toContain('psk_');
      expect(second.stdout() + second.stderr()).not.toContain('development key');
      expect((await fetch(`${second.url}/v1/pets`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(401);
      expect(await second.stop()).toBe(0);
    } finally {
      // A failed expectation leaves no server behind (stop is a no-op for one already stopped).
      for (const server of started) await server.stop('SIGKILL');
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it.runIf(databaseUrl)('is never printed with DATABASE_URL, by any instance of a fleet on an empty database', { timeout: 120_000 }, async () => {
    const scratch = await scratchPostgres();
    try {
      for (let instance = 0; instance < 2; instance++) {
        const server = await startProcess({ DATABASE_URL: scratch.url });
        expect(server.stdout() + server.stderr()).not.toContain('psk_');
        expect(await server.stop()).toBe(0);
      }
      const listed = await runCli(['keys', 'list', '--json'], { DATABASE_URL: scratch.url });
      expect(JSON.parse(listed.stdout)).toEqual([]);
    } finally {
      await scratch.drop();
    }
  });
});
