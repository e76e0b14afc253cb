import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Clock } from '@petstore/core';
import { openPetStore, type OpenPetStore } from '@petstore/embed';
import { databaseUrl, scratchPostgres } from '@petstore/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from './cli-run.js';

const PRO = 'usage-cli-pro-key-0123456789';
const SMALL = 'usage-cli-small-key-0123456789';
const apiKeys = [
  { key: PRO, plan: 'pro' as const },
  { key: SMALL, plan: 'enterprise' as const, limits: { perMinute: 2, perDay: 100 } },
];

const targets = [
  {
    name: 'the embedded database',
    instances: 1,
    async setUp() {
      const dir = await mkdtemp(join(tmpdir(), 'petstore-cli-usage-'));
      return { options: { dataDir: dir }, env: { PETSTORE_DATA_DIR: dir }, tearDown: () => rm(dir, { recursive: true, force: true }) };
    },
  },
  ...(databaseUrl
    ? [
        {
          name: 'PostgreSQL, two instances',
          instances: 2,
          async setUp() {
            const db = await scratchPostgres();
            return { options: { databaseUrl: db.url }, env: { DATABASE_URL: db.url }, tearDown: db.drop };
          },
        },
      ]
    : []),
];

describe.each(targets)('petstore usage on $name', (target) => {
  let env: Record<string, string>;
  let tearDown: () => Promise<void>;
  let folder: string;
  const clock: Clock & { at: number } = { at: Date.parse('2026-11-27T10:00:05Z'), now: () => clock.at };

  beforeAll(async () => {
    const set = await target.setUp();
    ({ env, tearDown } = set);
    folder = await mkdtemp(join(tmpdir(), 'petstore-usage-html-'));
    // A known mix of requests, spread over the instances (one store each, as a fleet's processes on one database).
    const stores: OpenPetStore[] = [];
    for (let i = 0; i < target.instances; i++) stores.push(await openPetStore({ ...set.options, clock, apiKeys, quota: { banThreshold: 1 } }));
    const on = (i: number) => stores[i % stores.length]!.store;
    for (let i = 0; i < 3; i++) await on(i).listPets({}, { apiKey: PRO });
    await on(0).createPet({ name: 'Rex', categoryId: 1 }, { apiKey: PRO });
    await on(1).createPet({ name: '', categoryId: 1 }, { apiKey: PRO }).catch(() => {});
    await on(0).getPet({ petId: 999 }, { apiKey: PRO }).catch(() => {});
    // SMALL: 2 served, 1 refused (rate_limited), then banned (threshold 1) for the next 2.
    for (let i = 0; i < 5; i++) await on(i).listPets({}, { apiKey: SMALL }).catch(() => {});
    // The next UTC day.
    clock.at = Date.parse('2026-11-28T09:00:00Z');
    await on(1).listPets({}, { apiKey: PRO });
    // A server error: with the pets table moved away for a moment, a create is answered 500 internal_error.
    const { db } = stores[0]!.database;
    await db.schema.alterTable('pets').renameTo('pets_away').execute();
    const failed = await on(0).createPet({ name: 'Lost', categoryId: 1 }, { apiKey: PRO }).catch((error: { status?: number }) => error);
    await db.schema.alterTable('pets_away').renameTo('pets').execute();
    expect(failed).toMatchObject({ status: 500 });
    for (const one of stores) await one.close();
  });
  afterAll(async () => {
    await tearDown();
    await rm(folder, { recursive: true, force: true });
  });

  it('prints exactly those counts as CSV, per key, day, plan and operation: served, 429, ban, 4xx and 5xx', async () => {
    const { code, stdout, stderr } = await run(['usage', '--format', 'csv'], env);
    expect(code, stderr).toBe(0);
    expect(stdout.split('\r\n').filter(Boolean)).toEqual([
      'day,key_id,principal_id,label,plan,operation,served,rate_limited,banned,client_errors,server_errors,unmetered,key_ids',
      '2026-11-27,1,,configured,pro,createPet,1,0,0,1,0,0,1',
      '2026-11-27,1,,configured,pro,getPet,0,0,0,1,0,0,1',
      '2026-11-27,1,,configured,pro,listPets,3,0,0,0,0,0,1',
      '2026-11-27,2,,configured,enterprise,listPets,2,1,2,0,0,0,2',
      '2026-11-28,1,,configured,pro,createPet,0,0,0,0,1,0,1',
      '2026-11-28,1,,configured,pro,listPets,1,0,0,0,0,0,1',
    ]);
  });

  it('narrows by day, key and plan, and prints a table or JSON', async () => {
    const day = await run(['usage', '--from', '2026-11-28', '--to', '2026-11-28', '--format', 'json'], env);
    expect(JSON.parse(day.stdout)).toEqual([
      expect.objectContaining({ day: '2026-11-28', keyId: 1, operationId: 'createPet', served: 0, serverErrors: 1 }),
      expect.objectContaining({ day: '2026-11-28', keyId: 1, operationId: 'listPets', served: 1 }),
    ]);
    const key = await run(['usage', '--key', '2', '--format', 'json'], env);
    expect(JSON.parse(key.stdout)).toEqual([expect.objectContaining({ keyId: 2, rateLimited: 1, banned: 2 })]);
    const plan = await run(['usage', '--plan', 'enterprise'], env);
    expect(plan.stdout.trimEnd().split('\n')).toHaveLength(2);
    expect(plan.stdout).toMatch(/^day\s+key_id/);
    const totals = await run(['usage', '--totals', '--format', 'csv', '--to', '2026-11-30'], env);
    expect(totals.stdout.split('\r\n').filter(Boolean)).toEqual([
      'from,to,key_id,principal_id,label,plan,served,rate_limited,banned,client_errors,server_errors,unmetered,key_ids',
      '2026-11-27,2026-11-30,1,,configured,pro,5,0,0,2,1,0,1',
      '2026-11-27,2026-11-30,2,,configured,enterprise,2,1,2,0,0,0,2',
    ]);
    const none = await run(['usage', '--plan', 'business'], env);
    expect(none.stdout).toBe('No usage recorded for this selection.\n');
  });

  it('writes the self-contained page with --html', async () => {
    const file = join(folder, 'usage.html');
    const { code, stderr } = await run(['usage', '--from', '2026-11-27', '--html', file], env);
    expect(code, stderr).toBe(0);
    const html = await readFile(file, 'utf8');
    expect(html).toContain('<canvas id="per-day"');
    expect(html).toContain('Pet Store usage, 2026-11-27 to …');
    expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+href=/i);
  });

  it('refuses a bad day, plan, format or key with exit code 2 and touches nothing', async () => {
    for (const [args, message] of [
      [['--from', '2026-02-30'], /--from must be a UTC day/],
      [['--from', '2026-11-28', '--to', '2026-11-27'], /is after --to/],
      [['--plan', 'gold'], /--plan must be one of/],
      [['--format', 'xml'], /--format must be table, csv or json/],
      [['--key', 'abc'], /numeric ID/],
    ] as const) {
      const { code, stderr } = await run(['usage', ...args], env);
      expect(code).toBe(2);
      expect(stderr).toMatch(message);
    }
  });
});
