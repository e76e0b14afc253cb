import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPetStore, migrateToLatest } from '@petstore/core';
import { openDatabase } from '@petstore/drivers';
import { databaseUrl, scratchPostgres } from '@petstore/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from './index.js';

async function run(argv: string[], env: Record<string, string | undefined> = {}) {
  let out = '';
  let err = '';
  const code = await main(argv, { env, out: { write: (text: string) => (out += text) }, err: { write: (text: string) => (err += text) } });
  return { code, out, err };
}

const targets = [
  {
    name: 'an embedded data folder',
    async setUp() {
      const dir = await mkdtemp(join(tmpdir(), 'petstore-cli-usage-'));
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

const zero = { served: 0, unmetered: 0, rateLimited: 0, banned: 0, clientErrors: 0, serverErrors: 0 };

describe.each(targets)('npx @petstore/cli usage on $name, in the store schema', (target) => {
  let setUp: Awaited<ReturnType<typeof target.setUp>>;
  let first: number;
  let second: number;
  let other: number;
  const tool = (...argv: string[]) => run(['usage', ...argv, '--schema', 'petstore', ...setUp.args]);

  beforeAll(async () => {
    setUp = await target.setUp();
    const clock = { at: Date.parse('2026-11-27T10:00:00Z'), now: () => clock.at };
    const database = await setUp.open();
    try {
      await migrateToLatest(database.db, { schema: 'petstore' });
      const store = createPetStore({ db: database.db, schema: 'petstore', clock });
      const acme = await store.apiKeys.create({ plan: 'pro', label: 'acme' });
      const trial = await store.apiKeys.create({ plan: 'free', label: 'trial' });
      first = acme.record.id;
      other = trial.record.id;
      for (let i = 0; i < 2; i++) await store.listPets({}, { apiKey: acme.key });
      await store.getUsage({}, { apiKey: acme.key });
      await store.listPets({}, { apiKey: trial.key });
      // Rolled: the old key works an hour more beside its successor.
      const rolled = await store.apiKeys.roll(first, { graceMs: 3_600_000 });
      if (typeof rolled === 'string') throw new Error(rolled);
      second = rolled.record.id;
      for (let i = 0; i < 3; i++) await store.listPets({}, { apiKey: rolled.key });
      await store.listPets({}, { apiKey: acme.key });
      clock.at = Date.parse('2026-11-28T09:00:00Z');
      await store.createPet({ name: 'Rex', categoryId: 1 }, { apiKey: rolled.key });
      await store.close();
    } finally {
      await database.close();
    }
  });
  afterAll(() => setUp?.drop());

  it("prints a rolled key's rows under its first id with both ids, and getUsage's calls as unmetered, not served", async () => {
    const { code, out, err } = await tool('--format', 'csv');
    expect(code, err).toBe(0);
    expect(out.split('\r\n')).toEqual([
      'day,key_id,principal_id,label,plan,operation,served,rate_limited,banned,client_errors,server_errors,unmetered,key_ids',
      `2026-11-27,${first},,acme,pro,getUsage,0,0,0,0,0,1,${first}`,
      `2026-11-27,${first},,acme,pro,listPets,6,0,0,0,0,0,${first} ${second}`,
      `2026-11-27,${other},,trial,free,listPets,1,0,0,0,0,0,${other}`,
      `2026-11-28,${first},,acme,pro,createPet,1,0,0,0,0,0,${second}`,
      '',
    ]);
    // --key of either key of the lineage selects the lineage.
    const json = JSON.parse((await tool('--format', 'json', '--key', String(second))).out) as unknown[];
    expect(json).toEqual([
      { day: '2026-11-27', keyId: first, keyIds: [first], label: 'acme', plan: 'pro', operationId: 'getUsage', ...zero, unmetered: 1 },
      { day: '2026-11-27', keyId: first, keyIds: [first, second], label: 'acme', plan: 'pro', operationId: 'listPets', ...zero, served: 6 },
      { day: '2026-11-28', keyId: first, keyIds: [second], label: 'acme', plan: 'pro', operationId: 'createPet', ...zero, served: 1 },
    ]);
    expect((await tool('--format', 'json', '--key', String(first))).out).toBe((await tool('--format', 'json', '--key', String(second))).out);
  });

  it('prints totals per key and period with --totals, in CSV and JSON', async () => {
    const csv = await tool('--totals', '--format', 'csv', '--from', '2026-11-01', '--to', '2026-11-30');
    expect(csv.code, csv.err).toBe(0);
    expect(csv.out.split('\r\n')).toEqual([
      'from,to,key_id,principal_id,label,plan,served,rate_limited,banned,client_errors,server_errors,unmetered,key_ids',
      `2026-11-01,2026-11-30,${first},,acme,pro,7,0,0,0,0,1,${first} ${second}`,
      `2026-11-01,2026-11-30,${other},,trial,free,1,0,0,0,0,0,${other}`,
      '',
    ]);
    const json = JSON.parse((await tool('--totals', '--format', 'json')).out) as unknown[];
    expect(json).toEqual([
      { from: '2026-11-27', to: '2026-11-28', keyId: first, keyIds: [first, second], label: 'acme', plan: 'pro', ...zero, served: 7, unmetered: 1 },
      { from: '2026-11-27', to: '2026-11-28', keyId: other, keyIds: [other], label: 'trial', plan: 'free', ...zero, served: 1 },
    ]);
    const day = JSON.parse((await tool('--totals', '--format', 'json', '--from', '2026-11-28')).out) as unknown[];
    expect(day).toEqual([{ from: '2026-11-28', to: '2026-11-28', keyId: first, keyIds: [second], label: 'acme', plan: 'pro', ...zero, served: 1 }]);
    expect((await tool('--totals')).out).toMatch(/^from\s+to\s+key_id\s+principal_id\s+label\s+plan\s+served/);
  });

  it('writes the page with --html, as the service tool does', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'petstore-cli-usage-page-'));
    try {
      const file = join(folder, 'usage.html');
      const { code, err } = await tool('--html', file);
      expect(code, err).toBe(0);
      expect(err).toContain(`Wrote ${file}`);
      const page = await readFile(file, 'utf8');
      // Booleans, so that a failure does not print the page (chart.js inlined).
      expect(page.includes('<title>Pet Store usage</title>'), 'the title').toBe(true);
      expect(page.includes(`key ${first}+${second} (acme)`), "the lineage's name among the top keys").toBe(true);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});

describe('npx @petstore/cli usage, on the command line alone', () => {
  it.each([
    [['usage', '--from', '2026-02-30'], '--from must be a UTC day written YYYY-MM-DD, such as 2026-11-01, not "2026-02-30".'],
    [['usage', '--from', '2026-11-02', '--to', '2026-11-01'], '--from 2026-11-02 is after --to 2026-11-01.'],
    [['usage', '--format', 'xml'], '--format must be table, csv or json, not "xml".'],
    [['usage', '--plan', 'gold'], '--plan must be one of'],
    [['usage', '--key', 'x'], 'Give the numeric ID of a key'],
    [['usage', '--json'], 'usage does not take --json.'],
    [['usage', 'now'], 'usage takes no argument.'],
    [['keys', 'list', '--totals'], 'keys list does not take --totals.'],
  ])('refuses %j with exit 2: %s', async (argv, message) => {
    const { code, out, err } = await run(argv, { DATABASE_URL: 'postgres://nowhere/x' });
    expect({ code, out }).toEqual({ code: 2, out: '' });
    expect(err).toContain(message);
  });

  it('says a database that cannot be reached as openPetStore says it, naming it without its password', async () => {
    // Nothing listens on port 1: the connection is refused at once.
    const env = { DATABASE_URL: 'postgres://petstore_user:secret-password@127.0.0.1:1/petstore' };
    for (const argv of [['keys', 'list'], ['usage', '--schema', 'petstore']]) {
      expect(await run(argv, env)).toEqual({
        code: 1,
        out: '',
        err: "The pet store's database at 127.0.0.1:1/petstore cannot be reached, so nothing was done: connect ECONNREFUSED 127.0.0.1:1\n",
      });
    }
  });
});
