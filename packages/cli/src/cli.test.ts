import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createPetStore, migrateToLatest } from '@petstore/core';
import { openDatabase } from '@petstore/drivers';
import { databaseUrl, scratchPostgres } from '@petstore/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from './index.js';

/** Runs the tool in-process, as `npx @petstore/cli …` does, and collects what it prints. */
async function run(argv: string[], env: Record<string, string | undefined>) {
  let out = '';
  let err = '';
  const code = await main(argv, { env, out: { write: (text: string) => (out += text) }, err: { write: (text: string) => (err += text) } });
  return { code, out, err };
}

describe('the key tool for hosts, on the command line alone', () => {
  it('prints its help, and refuses a command line it does not take with exit 2 before opening anything', async () => {
    expect(await run(['--help'], {})).toMatchObject({ code: 0, out: expect.stringContaining('npx @petstore/cli keys') });
    expect(await run(['keys', 'create', '--plan', 'gold'], { DATABASE_URL: 'postgres://nowhere/x' })).toMatchObject({ code: 2, err: expect.stringContaining('--plan must be one of') });
    expect(await run(['keys', 'list'], {})).toMatchObject({ code: 2, err: expect.stringContaining('set DATABASE_URL') });
    expect(await run(['keys', 'list', '--plan', 'pro'], { DATABASE_URL: 'postgres://nowhere/x' })).toMatchObject({ code: 2, err: expect.stringContaining('does not take --plan') });
    expect(await run(['keys', 'create', '--plan', 'pro', '--per-minute', '5', '--per-day', '9'], { DATABASE_URL: 'postgres://nowhere/x' })).toMatchObject({ code: 2 });
  });

  it('runs as the package bin', async () => {
    const bin = fileURLToPath(new URL('../bin/petstore-cli.js', import.meta.url));
    const { stdout } = await promisify(execFile)(process.execPath, [bin, '--help']);
    expect(stdout).toContain('Usage: npx @petstore/cli keys <command>');
  });
});

describe.skipIf(!databaseUrl)("the key tool on a host's database, in the store's schema", () => {
  let url: string;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    const scratch = await scratchPostgres();
    url = scratch.url;
    drop = scratch.drop;
  });
  afterAll(() => drop?.());

  it('says the tables are missing instead of making them, then creates, lists, limits and revokes keys the store honours', async () => {
    const env = { DATABASE_URL: url };
    const missing = await run(['keys', 'list', '--schema', 'petstore'], env);
    expect(missing).toMatchObject({ code: 1, err: expect.stringContaining("The store's tables are not in schema petstore") });

    const database = await openDatabase({ databaseUrl: url, poolSize: 2 });
    try {
      await migrateToLatest(database.db, { schema: 'petstore' });
      const created = await run(['keys', 'create', '--plan', 'pro', '--label', 'mobile app', '--schema', 'petstore'], env);
      expect(created.code).toBe(0);
      const key = created.out.trim();
      expect(key).toMatch(/^psk_/);
      const store = createPetStore({ db: database.db, schema: 'petstore' });
      expect((await store.listPets({ limit: 1 }, { apiKey: key })).data).toEqual([]);

      const big = await run(['keys', 'create', '--plan', 'enterprise', '--per-minute', '1000', '--per-day', '500000', '--schema', 'petstore'], env);
      expect(big.code).toBe(0);
      const listed = JSON.parse((await run(['keys', 'list', '--json', '--schema', 'petstore'], env)).out) as { id: number; label: string | null; plan: string; limits: object }[];
      expect(listed.map(({ label, plan, limits }) => ({ label, plan, limits }))).toEqual([
        { label: 'mobile app', plan: 'pro', limits: { perMinute: 300, perDay: 10_000 } },
        { label: null, plan: 'enterprise', limits: { perMinute: 1000, perDay: 500_000 } },
      ]);
      expect((await run(['keys', 'list', '--schema', 'petstore'], env)).out).toMatch(/^ID\s+LABEL\s+PLAN/);
      expect(await run(['keys', 'set-limits', String(listed[1]!.id), '--per-minute', '5000', '--per-day', '2000000', '--schema', 'petstore'], env)).toMatchObject({ code: 0 });
      expect(await run(['keys', 'set-limits', String(listed[0]!.id), '--per-minute', '5', '--per-day', '9', '--schema', 'petstore'], env)).toMatchObject({ code: 1, err: expect.stringContaining('not an enterprise key') });
      expect(await run(['keys', 'revoke', String(listed[0]!.id), '--schema', 'petstore'], env)).toMatchObject({ code: 0 });
      // A revoked key is refused (the store's key cache holds a verdict for a second at most).
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      await expect(store.listPets({ limit: 1 }, { apiKey: key })).rejects.toMatchObject({ code: 'invalid_api_key' });
      await store.close();
    } finally {
      await database.close();
    }
  });
});
