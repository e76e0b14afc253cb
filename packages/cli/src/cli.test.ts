import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

const KEY_FORMAT = /^psk_[0-9A-Za-z]{38}$/;
const pg = { DATABASE_URL: 'postgres://nowhere/x' };

describe('the key tool for hosts, on the command line alone', () => {
  it('prints its help, and refuses a command line it does not take with exit 2 before opening anything', async () => {
    expect(await run(['--help'], {})).toMatchObject({ code: 0, out: expect.stringContaining('npx @petstore/cli keys') });
    expect(await run(['keys', 'create', '--plan', 'gold'], pg)).toMatchObject({ code: 2, err: expect.stringContaining('--plan must be one of') });
    expect(await run(['keys', 'list'], {})).toMatchObject({ code: 2, err: expect.stringContaining('set DATABASE_URL') });
    expect(await run(['keys', 'list', '--plan', 'pro'], pg)).toMatchObject({ code: 2, err: expect.stringContaining('does not take --plan') });
    expect(await run(['keys', 'create', '--plan', 'pro', '--per-minute', '5', '--per-day', '9'], pg)).toMatchObject({ code: 2 });
  });

  it('prints its own release with --version or -v, the one in its package.json', async () => {
    const { version } = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
    for (const flag of ['--version', '-v']) expect(await run([flag], {})).toEqual({ code: 0, out: `${version}\n`, err: '' });
    expect(await run(['--version', 'keys', 'list'], pg)).toMatchObject({ code: 2, err: expect.stringContaining('--version takes nothing else.') });
    expect((await run(['--help'], {})).out).toContain('-v, --version');
  });

  it.each([
    [['keys', 'create', '--plan', 'free', '--expires-in', '30'], '--expires-in must be a duration above 0 such as 30d, 12h or 1d12h, not "30".'],
    [['keys', 'create', '--plan', 'free', '--expires-in', '0'], '--expires-in must be a duration above 0'],
    [['keys', 'create', '--plan', 'free', '--expires-in', '1d', '--expires-at', '2099-01-01'], 'Give --expires-in or --expires-at, not both.'],
    [['keys', 'create', '--plan', 'free', '--expires-at', '2020-01-01'], '--expires-at must be a time ahead'],
    [['keys', 'create', '--plan', 'free', '--expires-at', '2099-01-01T00:00:00'], '--expires-at must be a time ahead, with its zone'],
    [['keys', 'create', '--plan', 'free', '--grace', '1h'], 'keys create does not take --grace.'],
    [['keys', 'roll'], 'keys roll takes one key ID.'],
    [['keys', 'roll', '3', '4'], 'keys roll takes one key ID.'],
    [['keys', 'roll', 'three'], 'ID must be a whole number from 1, not "three".'],
    [['keys', 'roll', '3', '--grace', '1y'], '--grace must be a duration from 0 to 365d such as 24h or 7d, not "1y".'],
    [['keys', 'roll', '3', '--grace', '366d'], '--grace must be a duration from 0 to 365d'],
    [['keys', 'roll', '3', '--grace'], "Option '--grace <value>' argument missing"],
    [['keys', 'roll', '3', '--plan', 'pro'], 'keys roll does not take --plan.'],
  ])('refuses %j with exit 2: %s', async (argv, message) => {
    const { code, out, err } = await run(argv, pg);
    expect({ code, out }).toEqual({ code: 2, out: '' });
    expect(err).toContain(message);
  });

  it.each([
    [['keys', 'list', '--database-url', '/srv/app/.petstore-data'], {}, '--database-url must be a postgres:// URL, not "/srv/app/.petstore-data"; for an embedded data folder give --data-dir /srv/app/.petstore-data.'],
    [['keys', 'list'], { DATABASE_URL: './data' }, 'DATABASE_URL must be a postgres:// URL, not "./data"; for an embedded data folder give --data-dir ./data.'],
    [['keys', 'list', '--database-url', 'postgres://h/x', '--data-dir', './data'], {}, 'Give --database-url or --data-dir, not both.'],
    [['keys', 'list', '--data-dir', 'memory://'], {}, 'memory:// keeps no keys for another process to manage: give the data folder of the store.'],
  ])('names the embedded data folder for %j, instead of a socket that is not there', async (argv, env, message) => {
    expect(await run(argv, env)).toEqual({ code: 2, out: '', err: `${message}\nSee npx @petstore/cli --help.\n` });
  });

  it('takes an embedded data folder from --data-dir, or from PETSTORE_DATA_DIR when DATABASE_URL is not set', async () => {
    const { parseCommand } = await import('./parse-command.js');
    expect(parseCommand(['keys', 'list', '--data-dir', 'a'], { DATABASE_URL: 'postgres://h/x' })).toEqual({
      name: 'list',
      json: false,
      dataDir: 'a',
      runtimeDir: undefined,
      schema: undefined,
    });
    expect(parseCommand(['keys', 'list'], { PETSTORE_DATA_DIR: 'b' })).toMatchObject({ dataDir: 'b' });
    expect(parseCommand(['keys', 'list'], { PETSTORE_DATA_DIR: 'b', DATABASE_URL: 'postgres://h/x' })).toMatchObject({ databaseUrl: 'postgres://h/x' });
    expect(parseCommand(['keys', 'list', '--data-dir', 'a'], { XDG_RUNTIME_DIR: 'relative' })).toMatchObject({ runtimeDir: undefined });
    expect(parseCommand(['keys', 'list', '--data-dir', 'a'], { XDG_RUNTIME_DIR: '/run/user/1' })).toMatchObject({ runtimeDir: '/run/user/1' });
  });

  it('runs as the package bin, and exits 2 for a command line it does not take', async () => {
    const bin = fileURLToPath(new URL('../bin/petstore-cli.js', import.meta.url));
    const { stdout } = await promisify(execFile)(process.execPath, [bin, '--help']);
    expect(stdout).toContain('Usage: npx @petstore/cli keys <command>');
    const refused = await promisify(execFile)(process.execPath, [bin, 'keys', 'list', '--database-url', '/srv/data']).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 2, stdout: '', stderr: expect.stringContaining('give --data-dir /srv/data') });
  });
});

const hostDatabases = [
  {
    name: 'an embedded data folder',
    async setUp() {
      const dir = await mkdtemp(join(tmpdir(), 'petstore-cli-host-'));
      return { open: () => openDatabase({ dataDir: dir }), args: ['--data-dir', dir], drop: () => rm(dir, { recursive: true, force: true }) };
    },
  },
  ...(databaseUrl
    ? [
        {
          name: 'PostgreSQL',
          async setUp() {
            const scratch = await scratchPostgres();
            return { open: () => openDatabase({ databaseUrl: scratch.url, poolSize: 2 }), args: ['--database-url', scratch.url], drop: scratch.drop };
          },
        },
      ]
    : []),
];

describe.concurrent.each(hostDatabases)('the key tool on $name', (target) => {
  let setUp: Awaited<ReturnType<typeof target.setUp>>;
  beforeAll(async () => {
    setUp = await target.setUp();
  });
  afterAll(() => setUp?.drop());

  it('refuses a database without the store, then creates keys that expire, and rolls a key whose old one stops after the grace', async () => {
    const tool = (...argv: string[]) => run([...argv, ...setUp.args], {});
    const missing = await tool('keys', 'list');
    expect(missing.code).toBe(1);
    expect(missing.err).toMatch(target.name === 'PostgreSQL' ? /The store's tables are not in the current schema/ : /holds no embedded database/);
    {
      const database = await setUp.open();
      await migrateToLatest(database.db);
      await database.close();
    }

    const before = Date.now();
    const expiring = await tool('keys', 'create', '--plan', 'free', '--label', 'trial', '--expires-in', '30d');
    expect(expiring.code, expiring.err).toBe(0);
    expect(expiring.out.trim()).toMatch(KEY_FORMAT);
    expect(expiring.err).toMatch(/^Key \d+ \(free, until \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\) created\./);
    const created = await tool('keys', 'create', '--plan', 'enterprise', '--label', 'partner', '--per-minute', '5000', '--per-day', '2000000');
    const oldKey = created.out.trim();
    type Listed = { id: number; label: string | null; plan: string; limits: object; expiresAt: string | null; replacedBy: number | null };
    const listed = async () => JSON.parse((await tool('keys', 'list', '--json')).out) as Listed[];
    const trial = (await listed()).find((k) => k.label === 'trial')!;
    expect(Date.parse(trial.expiresAt!) - before).toBeGreaterThanOrEqual(30 * 86_400_000 - 1_000);
    expect(Date.parse(trial.expiresAt!) - Date.now()).toBeLessThanOrEqual(30 * 86_400_000);
    const partner = (await listed()).find((k) => k.label === 'partner')!;

    const rolled = await tool('keys', 'roll', String(partner.id), '--grace', '1h');
    expect(rolled.code, rolled.err).toBe(0);
    const newKey = rolled.out.trim();
    expect(newKey).toMatch(KEY_FORMAT);
    expect(newKey).not.toBe(oldKey);
    expect(rolled.err).toMatch(new RegExp(`^Key \\d+ \\(enterprise\\) replaces key ${partner.id}, which works until \\S+Z\\.`));
    const after = await listed();
    const old = after.find((k) => k.id === partner.id)!;
    const successor = after.find((k) => k.id === old.replacedBy)!;
    expect(successor).toMatchObject({ label: 'partner', plan: 'enterprise', limits: { perMinute: 5000, perDay: 2_000_000 }, expiresAt: null });
    expect(Date.parse(old.expiresAt!) - Date.now()).toBeGreaterThan(3_590_000);
    expect(Date.parse(old.expiresAt!) - Date.now()).toBeLessThanOrEqual(3_600_000);
    expect(await tool('keys', 'roll', String(partner.id))).toMatchObject({ code: 1, err: expect.stringContaining('was already rolled') });
    expect(await tool('keys', 'roll', '999999')).toMatchObject({ code: 1, err: 'No key 999999.\n' });

    // The store honours both keys until the grace ends, then only the new one: its clock is moved past the hour.
    let now = Date.now();
    const database = await setUp.open();
    const store = createPetStore({ db: database.db, clock: { now: () => now } });
    try {
      for (const key of [oldKey, newKey]) expect((await store.listPets({ limit: 1 }, { apiKey: key })).data).toEqual([]);
      now = Date.parse(old.expiresAt!) + 1;
      await expect(store.listPets({ limit: 1 }, { apiKey: oldKey })).rejects.toMatchObject({ code: 'invalid_api_key' });
      expect((await store.listPets({ limit: 1 }, { apiKey: newKey })).data).toEqual([]);
    } finally {
      await store.close();
      await database.close();
    }

    const stopped = await tool('keys', 'roll', String(successor.id), '--grace', '0', '--expires-in', '7d');
    expect(stopped.code, stopped.err).toBe(0);
    const last = await listed();
    expect(Date.parse(last.find((k) => k.id === successor.id)!.expiresAt!)).toBeLessThanOrEqual(Date.now());
    const newest = last.find((k) => k.id === last.find((x) => x.id === successor.id)!.replacedBy)!;
    expect(Math.abs(Date.parse(newest.expiresAt!) - (Date.now() + 7 * 86_400_000))).toBeLessThan(60_000);
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
